import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { send, type Outgoing } from '@/scripts/chaos/driver/http';

// The chaos run's client records what reached it and leaves when its fault says: before a JSON
// answer, before a stream's first delta, after it, or half-way through the body it sends.

let server: Server;
let base = '';
const received: { path: string; bytes: number; complete: boolean }[] = [];
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

beforeAll(async () => {
  server = createServer(async (request, response) => {
    let bytes = 0;
    request.on('data', (chunk: Buffer) => (bytes += chunk.length));
    request.on('close', () => received.push({ path: request.url ?? '', bytes, complete: request.complete }));
    if (request.url === '/stream') {
      response.writeHead(200, { 'content-type': 'text/event-stream', 'x-request-id': 'req_stream' });
      response.write(': keep-alive\n\n');
      for (const word of ['one ', 'two ', 'three']) {
        await sleep(100);
        if (response.destroyed) return;
        response.write(`event: delta\ndata: ${JSON.stringify({ text: word })}\n\n`);
      }
      response.end(`event: done\ndata: {"id":"u1","output":{"text":"one two three"}}\n\n`);
      return;
    }
    await new Promise((resolve) => request.on('end', resolve).resume());
    await sleep(request.url === '/slow' ? 300 : 0);
    if (!response.destroyed)
      response.writeHead(200, { 'content-type': 'application/json', 'idempotent-replayed': 'true' }).end('{"ok":true}');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

const clock = () => Date.now();
const post = (path: string, extra: Partial<Outgoing> = {}): Outgoing => ({
  method: 'POST',
  url: `${base}${path}`,
  headers: { 'content-type': 'application/json' },
  body: Buffer.from('{"x":1}'),
  timeoutMs: 5_000,
  ...extra,
});

describe('the chaos client', () => {
  it('reads a whole JSON answer and a whole stream', async () => {
    const json = await send(post('/json'), 'a', clock);
    expect(json).toMatchObject({ status: 200, body: '{"ok":true}', replayed: true, instance: 'a' });
    expect(json.failure).toBeUndefined();
    const stream = await send(post('/stream', { stream: true }), 'b', clock);
    expect(stream).toMatchObject({ status: 200, requestId: 'req_stream', deltas: ['one ', 'two ', 'three'], ending: 'done' });
    expect(JSON.parse(stream.endingData!)).toMatchObject({ id: 'u1' });
  });

  it('hangs up before a JSON answer, before the first delta, after it', async () => {
    const gone = await send(post('/slow', { hangUp: 'before-answer', hangUpAfterMs: 50 }), 'a', clock);
    expect(gone).toMatchObject({ failure: 'client hung up before-answer' });
    expect(gone.status).toBeUndefined();
    const beforeDelta = await send(post('/stream', { stream: true, hangUp: 'before-delta' }), 'a', clock);
    expect(beforeDelta).toMatchObject({ status: 200, deltas: [], ending: 'cut', failure: 'client hung up before-delta' });
    const afterDelta = await send(post('/stream', { stream: true, hangUp: 'after-delta' }), 'a', clock);
    expect(afterDelta).toMatchObject({ status: 200, deltas: ['one '], ending: 'cut', failure: 'client hung up after-delta' });
  });

  it('sends half a body and hangs up', async () => {
    const body = Buffer.alloc(100_000, 1);
    const answer = await send(post('/upload', { method: 'PUT', body, hangUp: 'mid-body' }), 'a', clock);
    expect(answer.failure).toBe('client hung up mid-body');
    await sleep(100);
    const upload = received.find((r) => r.path === '/upload')!;
    expect(upload.complete).toBe(false);
    expect(upload.bytes).toBeLessThan(body.length);
  });

  it('records a refused connection as a network failure', async () => {
    const answer = await send({ ...post('/json'), url: 'http://127.0.0.1:1/json' }, 'a', clock);
    expect(answer.failure).toMatch(/^network: ECONNREFUSED/);
  });
});
