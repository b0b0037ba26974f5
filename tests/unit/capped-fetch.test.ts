import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cappedFetch } from '@/server/providers/capped-fetch';
import { allowProviderPrivateOrigin } from '@/server/providers/outbound/provider-door';

// A provider's reply is capped at 16 MiB of JSON whether or not it declares its length: a
// declared length is judged before the body is read, an undeclared one as it streams.

const MiB = 1024 * 1024;
let server: Server;
let base: string;

// API calls (POST) take the direct path; each answer here is chosen by the URL.
function answerPost(request: IncomingMessage, response: ServerResponse) {
  const chunks: Buffer[] = [];
  request.on('data', (chunk: Buffer) => chunks.push(chunk));
  request.on('end', () => {
    const url = new URL(request.url!, 'http://x');
    const mib = Number(url.searchParams.get('mib') ?? 0);
    if (url.pathname === '/echo') {
      response.writeHead(201, { 'content-type': 'application/json', 'x-seen-type': request.headers['content-type'] ?? '' });
      response.end(JSON.stringify({ received: Buffer.concat(chunks).toString() }));
    } else if (url.pathname === '/moved') {
      response.writeHead(307, { location: '/echo' });
      response.end('moved');
    } else if (url.pathname === '/empty') {
      response.writeHead(204);
      response.end();
    } else if (url.pathname === '/slow') {
      setTimeout(() => response.end('{}'), 2_000).unref();
    } else {
      const chunked = url.pathname === '/chunked';
      response.writeHead(200, { 'content-type': 'application/json', ...(chunked ? {} : { 'content-length': mib * MiB }) });
      for (let sent = 0; sent < mib * MiB; sent += MiB) response.write(Buffer.alloc(MiB, 0x20));
      response.end();
    }
  });
}

beforeAll(async () => {
  server = createServer((request, response) => {
    if (request.method === 'POST') return answerPost(request, response);
    const size = Number(new URL(request.url!, 'http://x').searchParams.get('mib')) * MiB;
    const chunked = request.url!.includes('chunked');
    response.writeHead(200, { 'content-type': 'application/json', ...(chunked ? {} : { 'content-length': size }) });
    const chunk = Buffer.alloc(MiB, 0x20);
    for (let sent = 0; sent < size; sent += MiB) response.write(chunk);
    response.end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  allowProviderPrivateOrigin('provider:capped-fetch-test', base); // as a provider's base_url on 127.0.0.1 is
});

afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

describe('cappedFetch', () => {
  it('passes a reply within the cap through whole, declared or streamed', async () => {
    expect((await (await cappedFetch(`${base}/?mib=2`)).arrayBuffer()).byteLength).toBe(2 * MiB);
    expect((await (await cappedFetch(`${base}/chunked?mib=2`)).arrayBuffer()).byteLength).toBe(2 * MiB);
    // A Request goes through the door as its parts (undici's fetch takes only its own Request).
    expect((await (await cappedFetch(new Request(`${base}/?mib=1`))).arrayBuffer()).byteLength).toBe(MiB);
  });

  it('refuses a declared length over the cap before reading the body', async () => {
    await expect(cappedFetch(`${base}/?mib=17`)).rejects.toThrow(/larger than/);
  });

  it('cuts off a reply of undeclared length once it passes the cap', async () => {
    const response = await cappedFetch(`${base}/chunked?mib=17`);
    await expect(response.arrayBuffer()).rejects.toThrow();
  });

  describe('a POST of text (the direct path)', () => {
    const post = (path: string, init: RequestInit = {}, timeoutMs?: number) =>
      cappedFetch(
        `${base}${path}`,
        { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"a":1}', ...init },
        timeoutMs,
      );

    it('answers with the status, headers and body as sent', async () => {
      const response = await post('/echo');
      expect(response.status).toBe(201);
      expect(response.headers.get('x-seen-type')).toBe('application/json');
      expect(await response.json()).toEqual({ received: '{"a":1}' });
    });

    it('sends bytes as they are', async () => {
      const response = await post('/echo', { body: new TextEncoder().encode('bytes') });
      expect(await response.json()).toEqual({ received: 'bytes' });
    });

    it('refuses a reply over the cap, declared or not', async () => {
      await expect(post('/declared?mib=17')).rejects.toThrow(/larger than/);
      await expect(post('/chunked?mib=17')).rejects.toThrow(/larger than/);
      expect((await (await post('/chunked?mib=2')).arrayBuffer()).byteLength).toBe(2 * MiB);
    });

    it('follows a redirect through fetch', async () => {
      const response = await post('/moved');
      expect(response.status).toBe(201);
      expect(await response.json()).toEqual({ received: '{"a":1}' });
    });

    it('gives an empty answer no body', async () => {
      const response = await post('/empty');
      expect(response.status).toBe(204);
      expect(response.body).toBeNull();
    });

    it("fails as fetch fails: an abort with the signal's reason, a timeout, a refused connection", async () => {
      const reason = new Error('the caller gave up');
      const controller = new AbortController();
      setTimeout(() => controller.abort(reason), 50).unref();
      await expect(post('/slow', { signal: controller.signal })).rejects.toBe(reason);
      await expect(post('/slow', {}, 50)).rejects.toMatchObject({ name: 'TimeoutError' });
      const closed = createServer();
      await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
      const port = (closed.address() as AddressInfo).port;
      await new Promise<void>((resolve) => closed.close(() => resolve()));
      allowProviderPrivateOrigin('provider:closed', `http://127.0.0.1:${port}`);
      const refused = cappedFetch(`http://127.0.0.1:${port}/`, { method: 'POST', body: 'x' });
      await expect(refused).rejects.toBeInstanceOf(TypeError);
      await expect(refused).rejects.toMatchObject({ message: 'fetch failed', cause: { code: 'ECONNREFUSED' } });
    });
  });
});
