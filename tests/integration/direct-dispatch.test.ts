import { once } from 'node:events';
import { connect, type AddressInfo } from 'node:net';
import { Readable } from 'node:stream';
import { Pool } from 'undici';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { resetConfigForTests } from '@/server/config';
import { acceptedConnection, type Connection } from '@/server/auth/connection';
import { disconnectDb } from '@/server/db/client';
import { createDirectDispatch } from '@/server/http/edge/direct-dispatch';
import { createEdgeServer } from '@/server/http/edge/edge-server';
import { apiPaths } from '@/server/http/edge/normalize-request';
import { enableMetrics } from '@/server/observability/metrics';
import { answerEdgeError, serviceApp, servesTarget, SURFACE_PREFIXES } from '@/server/surfaces/service-app';
import { createTestKey, newIdempotencyKey } from '../helpers/api';
import { parsePrometheusText } from '../helpers/prometheus-text';
import { sampleWav } from './support/storage/uploads';

// `npm start`'s server (createEdgeServer with the service's app, as scripts/serve.ts makes it)
// answers /v1, /healthz and /readyz without calling Next's request handler, which still gets
// every other path, inside the connection it came on and with no header of the server's own;
// each route's answers carry its own label in the request metric.

let server: ReturnType<typeof createEdgeServer>;
let base: string;
const nextCalls: string[] = [];
const nextSaw: { connection: Connection | undefined; headers: string[] }[] = [];

beforeAll(async () => {
  await enableMetrics();
  const app = { serves: servesTarget, dispatch: createDirectDispatch(serviceApp) };
  server = createEdgeServer(
    async (req, res) => {
      nextCalls.push(req.url ?? '');
      nextSaw.push({ connection: acceptedConnection(), headers: Object.keys(req.headers) });
      res.writeHead(200, { 'Content-Type': 'text/plain' }).end('next');
    },
    { isApiPath: apiPaths(SURFACE_PREFIXES), app, answerError: answerEdgeError },
  );
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server?.close();
  await disconnectDb();
});

const send = (path: string, init: RequestInit = {}) =>
  fetch(`${base}${path}`, init).then(async (r) => ({ status: r.status, headers: r.headers, text: await r.text() }));

describe('the direct path of npm start', () => {
  it('serves every /v1 answer (paid, refused, 404, 405) and the probes without entering Next; Next keeps the rest', async () => {
    const { key } = await createTestKey();
    const auth = { authorization: `Bearer ${key}` };
    const paid = await send('/v1/text/generate', {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json', 'idempotency-key': newIdempotencyKey() },
      body: JSON.stringify({ input: 'hello' }),
    });
    expect(paid.status, paid.text).toBe(200);
    expect(JSON.parse(paid.text).output).toBeDefined();
    expect((await send('/v1/key', { headers: auth })).status).toBe(200);
    expect((await send('/v1/key', { method: 'HEAD', headers: auth })).status).toBe(200);
    const cancel = await send('/v1/jobs/job_missing/cancel', {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json', 'idempotency-key': newIdempotencyKey() },
      body: '{}',
    });
    expect(cancel.status).toBe(404);
    expect((await send('/v1/no-such-route')).status).toBe(404);
    const refused = await send('/v1/text/generate', { method: 'DELETE' });
    expect([refused.status, refused.headers.get('allow')]).toEqual([405, 'POST']);
    expect(JSON.parse(refused.text).error.code).toBe('method_not_allowed');
    expect((await send('/v1/openapi.json')).status).toBe(200);
    expect((await send('/healthz')).status).toBe(200);
    expect((await send('/readyz')).status).toBe(200);
    expect(nextCalls).toEqual([]);

    // What next.config.mjs has Next add to these paths comes with the direct answers too.
    expect(paid.headers.get('x-frame-options')).toBe('DENY');
    expect(paid.headers.get('referrer-policy')).toBe('strict-origin');
    expect(paid.headers.get('x-request-id')).toMatch(/^req_/);

    expect((await send('/signin')).text).toBe('next');
    expect((await send('/healthz/more')).text).toBe('next');
    expect(nextCalls).toEqual(['/signin', '/healthz/more']);
  });

  it("serves Next's paths inside the connection they came on, and hands on nothing but what the client sent", async () => {
    nextSaw.length = 0;
    await send('/keys?status=active', { headers: { 'x-wgs-client-address': '203.0.113.9', 'x-forwarded-for': '203.0.113.9' } });
    expect(nextSaw).toHaveLength(1);
    expect(nextSaw[0]!.connection).toEqual({ peerAddress: '127.0.0.1', target: '/keys?status=active' });
    // What the client sent reaches Next as sent; the server adds no header of its own.
    expect(nextSaw[0]!.headers.filter((name) => name.startsWith('x-wgs-'))).toEqual(['x-wgs-client-address']);
    expect(acceptedConnection()).toBeUndefined(); // outside a request, none
  });

  it("drops the rest of a body refused before its end, so that a pooled client's next request on that socket is answered", async () => {
    const { key } = await createTestKey({
      operations: { 'audio.transcribe': { engine: 'local', units: 1 }, 'text.generate': { engine: 'local', units: 1 } },
      quota: 10,
    });
    const boundary = 'wgs-form';
    const form = (language: string, wav: Buffer) =>
      Buffer.concat([
        Buffer.from(
          `--${boundary}\r\nContent-Disposition: form-data; name="model"\r\n\r\naudio.transcribe\r\n` +
            `--${boundary}\r\nContent-Disposition: form-data; name="language"\r\n\r\n${language}\r\n` +
            `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="a.wav"\r\nContent-Type: audio/wav\r\n\r\n`,
        ),
        wav,
        Buffer.from(`\r\n--${boundary}--\r\n`),
      ]);
    const wav = await sampleWav('Hi.');
    // One socket, as a pooled SDK client's: each request is sent as soon as the one before is answered.
    const pool = new Pool(base, { connections: 1 });
    const post = async (path: string, contentType: string, body: Buffer | Readable) => {
      const answer = await pool.request({
        path,
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': contentType, 'idempotency-key': newIdempotencyKey() },
        body,
      });
      return { status: answer.statusCode, text: await answer.body.text() };
    };
    const transcribe = (language: string) =>
      post('/openai/v1/audio/transcriptions', `multipart/form-data; boundary=${boundary}`, form(language, wav));
    try {
      // A field past 128 KiB refuses the form at once; the client has sent all 2 MB by then.
      expect((await transcribe('e'.repeat(2_000_000))).status).toBe(400);
      const next = await transcribe('en');
      expect(next.status, next.text).toBe(200);
      // A chunked JSON body refused at 1 MiB, sent whole.
      const chunked = async function* () {
        for (let i = 0; i < 3; i++) yield Buffer.from(`{"input":"${'x'.repeat(600_000)}`);
      };
      expect((await post('/v1/text/generate', 'application/json', Readable.from(chunked()))).status).toBe(413);
      const after = await post('/v1/text/generate', 'application/json', Buffer.from('{"input":"hello"}'));
      expect(after.status, after.text).toBe(200);
    } finally {
      await pool.close();
    }
  });

  it('keeps reading a refused body that is still arriving after half a second, then answers the next request on its socket', async () => {
    const socket = connect(Number(new URL(base).port), '127.0.0.1');
    await once(socket, 'connect');
    let received = '';
    socket.on('data', (chunk: Buffer) => (received += chunk.toString('latin1')));
    const closed = once(socket, 'close');
    const size = 10 * 100_000;
    socket.write(
      'POST /v1/text/generate HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer wgs_live_unknown\r\n' +
        `Content-Type: application/json\r\nIdempotency-Key: ${newIdempotencyKey()}\r\nContent-Length: ${size}\r\n\r\n`,
    );
    // A slow link: the body comes in ten pieces over 1.5 s, long after its 401 was written.
    for (let piece = 0; piece < 10; piece++) {
      socket.write(Buffer.alloc(100_000, 0x20));
      await new Promise((resolve) => setTimeout(resolve, 150));
    }
    socket.write('GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n');
    await closed;
    expect(received.match(/HTTP\/1\.1 \d{3}/g)).toEqual(['HTTP/1.1 401', 'HTTP/1.1 200']);
  });

  it('answers a path with a backslash 404 in the envelope, as the literal text it is (Next read it as / and redirected, 308)', async () => {
    const { key } = await createTestKey();
    const nextCallsBefore = nextCalls.length;
    for (const target of ['/v1\\key', '/v1/key\\', '/v1\\text\\generate']) {
      const socket = connect(Number(new URL(base).port), '127.0.0.1');
      let received = '';
      socket.on('data', (chunk: Buffer) => (received += chunk.toString('latin1')));
      const closed = once(socket, 'close');
      socket.write(`GET ${target} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${key}\r\nConnection: close\r\n\r\n`);
      await closed;
      expect([target, received.match(/^HTTP\/1\.1 \d{3}/)?.[0]]).toEqual([target, 'HTTP/1.1 404']);
      expect(received).toContain('"code":"not_found"');
      expect(received.toLowerCase()).toContain('cache-control: no-store');
    }
    expect(nextCalls.slice(nextCallsBefore)).toEqual([]);
  });

  /** Sends raw bytes and reads the refusal, the connection closed after it: its head (lower case) and its JSON body. */
  async function refusalOf(bytes: string): Promise<{ head: string; body: { error: Record<string, unknown> } }> {
    const socket = connect(Number(new URL(base).port), '127.0.0.1');
    let received = '';
    socket.on('data', (chunk: Buffer) => (received += chunk.toString('latin1')));
    const closed = once(socket, 'close');
    socket.write(bytes);
    await closed;
    const headEnd = received.indexOf('\r\n\r\n');
    return {
      head: received.slice(0, headEnd).toLowerCase(),
      body: JSON.parse(received.slice(headEnd + 4)) as { error: Record<string, unknown> },
    };
  }

  it("refuses a transfer coding it does not decode in the envelope of the path's surface: OpenAI's under /openai/v1 (outside audit: /v1's)", async () => {
    const body = '{"model":"text.generate"}';
    const refusal = (path: string) =>
      refusalOf(
        `POST ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer wgs_live_unknown\r\nContent-Type: application/json\r\n` +
          `Transfer-Encoding: gzip, chunked\r\n\r\n${body.length.toString(16)}\r\n${body}\r\n0\r\n\r\n`,
      );
    const message = 'The transfer coding gzip is not supported: send the body as it is, chunked or with a Content-Length.';
    const openai = await refusal('/openai/v1/chat/completions');
    expect(openai.head).toMatch(/^http\/1\.1 400 /);
    expect(openai.head).toContain('x-should-retry: false');
    expect(openai.body).toEqual({ error: { message, type: 'invalid_request_error', param: null, code: 'invalid_request' } });
    const v1 = await refusal('/v1/text/generate');
    expect(v1.head).toMatch(/^http\/1\.1 400 /);
    expect(v1.body).toEqual({ error: { code: 'invalid_request', message, request_id: expect.stringMatching(/^req_/) } });
    expect(v1.head).toContain(`x-request-id: ${(v1.body.error as { request_id: string }).request_id.toLowerCase()}`);
  });

  it("refuses a request without exactly one Host in the envelope of the path's surface (review: /v1's on /openai/v1)", async () => {
    const refusal = async (head: string) => {
      const answer = await refusalOf(`${head}Connection: close\r\n\r\n`);
      return { status: answer.head.slice(0, 12).toUpperCase(), body: answer.body };
    };
    const message = 'An HTTP/1.1 request needs exactly one Host header (RFC 9112, section 3.2).';
    for (const head of ['GET /openai/v1/models HTTP/1.1\r\n', 'GET /openai/v1/models HTTP/1.1\r\nHost: a\r\nHost: b\r\n']) {
      expect(await refusal(head)).toEqual({
        status: 'HTTP/1.1 400',
        body: { error: { message, type: 'invalid_request_error', param: null, code: 'invalid_request' } },
      });
    }
    const v1 = await refusal('GET /v1/key HTTP/1.1\r\n');
    expect([v1.status, v1.body.error.code, v1.body.error.message]).toEqual(['HTTP/1.1 400', 'invalid_request', message]);
  });

  it("answers a method Next cannot route on the probes in the envelope, with the probe's own Allow", async () => {
    const probe = await send('/healthz', { method: 'PROPFIND' });
    expect([probe.status, probe.headers.get('allow'), JSON.parse(probe.text).error.code]).toEqual([405, 'GET, HEAD', 'method_not_allowed']);
  });

  it('labels GET /v1/key and POST /v1/jobs/{jobId}/cancel by their own route in the request metric', async () => {
    const metrics = await enableMetrics();
    const samples = parsePrometheusText(await metrics.registry.metrics()).samples.filter(
      (sample) => sample.name === 'wgs_http_request_duration_seconds_count',
    );
    const routes = new Set(samples.map((sample) => sample.labels.route));
    expect(routes).toContain('/v1/key');
    expect(routes).toContain('/v1/jobs/{jobId}/cancel');
    expect(routes).toContain('/v1/text/generate');
    expect(routes).toContain('unmatched');
    expect(samples.find((s) => s.labels.route === '/v1/key' && s.labels.method === 'HEAD')).toBeDefined();
  });
});

describe('pipelined requests on one connection', () => {
  let edge: ReturnType<typeof createEdgeServer>;
  let port: number;
  const served: string[] = [];

  beforeAll(async () => {
    // Next's handler stands in for any slow answer: /slow takes 300 ms.
    edge = createEdgeServer(
      async (req, res) => {
        served.push(req.url ?? '');
        if (req.url === '/slow') await new Promise((resolve) => setTimeout(resolve, 300));
        try {
          for await (const chunk of req) void chunk; // a body is read to its end before the answer
        } catch {
          return; // its client left: nothing to answer
        }
        res.writeHead(200, { 'Content-Type': 'text/plain', 'Content-Length': Buffer.byteLength(req.url ?? '') }).end(req.url);
      },
      { isApiPath: () => false },
    );
    edge.listen(0, '127.0.0.1');
    await once(edge, 'listening');
    port = (edge.address() as AddressInfo).port;
  });
  afterAll(() => edge?.close());

  /** Writes `raw` at once; the answers received until the server closes, or `closeAfterMs` when given. */
  async function pipeline(raw: string, closeAfterMs?: number): Promise<string> {
    const socket = connect(port, '127.0.0.1');
    let received = '';
    socket.on('data', (chunk: Buffer) => (received += chunk.toString('latin1')));
    socket.on('error', () => {}); // a reset closes it too
    const closed = new Promise((resolve) => socket.once('close', resolve));
    socket.write(raw);
    if (closeAfterMs !== undefined) setTimeout(() => socket.destroy(), closeAfterMs);
    await closed;
    return received;
  }
  const get = (path: string, close = false) => `GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\n${close ? 'Connection: close\r\n' : ''}\r\n`;

  it('serves them one after another, in order', async () => {
    served.length = 0;
    const answers = await pipeline(get('/slow') + get('/a') + get('/b', true));
    expect(served).toEqual(['/slow', '/a', '/b']);
    expect(answers.split(/HTTP\/1\.1 200 OK\r\n[^]*?\r\n\r\n/)).toEqual(['', '/slow', '/a', '/b']);
  });

  it('closes a connection that sends more than it keeps waiting, after the answer in service, serving none of them (a flood held every one in memory)', async () => {
    served.length = 0;
    const answers = await pipeline(get('/slow') + get('/fast').repeat(5_000));
    expect(served).toEqual(['/slow']);
    expect(answers.match(/HTTP\/1\.1 \d{3}/g)).toEqual(['HTTP/1.1 200']); // the request in service ran: its answer is not lost
  });

  it('answers a waiting request whose chunked body Node cannot parse with its refusal, in its turn (served, it waited for ever)', async () => {
    served.length = 0;
    const broken = 'POST /body HTTP/1.1\r\nHost: 127.0.0.1\r\nTransfer-Encoding: chunked\r\n\r\n5\r\n{"inp\r\nZZZ\r\n';
    const answers = await pipeline(get('/slow') + broken, 3_000);
    expect(served).toEqual(['/slow']);
    expect(answers.match(/HTTP\/1\.1 \d{3}/g)).toEqual(['HTTP/1.1 200', 'HTTP/1.1 400']);
  });

  it('answers bytes it cannot parse, or a CONNECT, after the request in service, not in its place', async () => {
    for (const refused of ['GET /x HTTP/1.1\r\nBad Header\r\n\r\n', 'CONNECT example.com:443 HTTP/1.1\r\nHost: example.com\r\n\r\n']) {
      served.length = 0;
      const answers = await pipeline(get('/slow') + refused);
      expect(served).toEqual(['/slow']);
      expect(answers.match(/HTTP\/1\.1 \d{3}/g)).toEqual(['HTTP/1.1 200', refused.startsWith('GET') ? 'HTTP/1.1 400' : 'HTTP/1.1 405']);
    }
  });

  it('closes the connection after a request that asks for an Upgrade (Node reads nothing after it: one pipelined behind it waited unanswered)', async () => {
    served.length = 0;
    const upgrade = 'GET /up HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n\r\n';
    const answers = await pipeline(upgrade + get('/after'));
    expect(answers.match(/HTTP\/1\.1 \d{3}/g)).toEqual(['HTTP/1.1 200']);
    expect(answers.toLowerCase()).toContain('connection: close');
  });

  it('starts no waiting request once its client has gone (it would run, and be charged, for no one)', async () => {
    served.length = 0;
    await pipeline(get('/slow') + get('/after'), 50);
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(served).toEqual(['/slow']);
  });
});

describe('an absolute-form target', () => {
  it("names the host the app's URLs are built on, not the Host header (RFC 9112 §3.2.2; security audit)", async () => {
    const publicBaseUrl = process.env.PUBLIC_BASE_URL;
    delete process.env.PUBLIC_BASE_URL; // URLs then follow the request's host
    resetConfigForTests();
    onTestFinished(() => {
      process.env.PUBLIC_BASE_URL = publicBaseUrl;
      resetConfigForTests();
    });
    const socket = connect((server.address() as AddressInfo).port, '127.0.0.1');
    socket.write(`GET http://abs.example:99/v1/openapi.json HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n`);
    const chunks: Buffer[] = [];
    for await (const chunk of socket) chunks.push(chunk as Buffer);
    const answer = Buffer.concat(chunks).toString('utf8');
    expect(answer).toMatch(/^HTTP\/1\.1 200 /);
    expect(answer).toContain('"url":"http://abs.example:99');
    expect(answer).not.toContain('"url":"http://127.0.0.1');
  });
});

describe('Expect: 100-continue', () => {
  /** The head of a text call that asks to be told to go on before its body. */
  const expectingHead = (authorization: string, length: number) =>
    [
      'POST /v1/text/generate HTTP/1.1',
      'Host: x',
      `Authorization: ${authorization}`,
      `Idempotency-Key: ${newIdempotencyKey()}`,
      'Content-Type: application/json',
      `Content-Length: ${length}`,
      'Expect: 100-continue',
    ].join('\r\n') + '\r\n\r\n';
  const firstAnswer = async (head: string) => {
    const socket = connect((server.address() as AddressInfo).port, '127.0.0.1');
    socket.write(head);
    const [chunk] = (await once(socket, 'data')) as [Buffer];
    return { socket, text: chunk.toString('latin1') };
  };

  it('a body the edge refuses by its headers is answered at once, without inviting it first (security audit: 100, then 5 s)', async () => {
    const { socket, text } = await firstAnswer(
      'POST /api/trpc/keys.revoke HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 2000000\r\nExpect: 100-continue\r\n\r\n',
    );
    expect(text).toMatch(/^HTTP\/1\.1 413 /);
    socket.destroy();
  });

  it('one the API refuses by its headers is answered without inviting the body, and the connection closes (HTTP edges audit: 100, then 401 or 413)', async () => {
    const { key } = await createTestKey();
    for (const [authorization, length, status] of [
      ['Bearer wgs_live_not_a_key', 20, 401],
      [`Bearer ${key}`, 2_000_000, 413],
    ] as const) {
      const { socket, text } = await firstAnswer(expectingHead(authorization, length));
      expect(text).toMatch(new RegExp(`^HTTP/1\\.1 ${status} `));
      expect(text).toMatch(/\r\nConnection: close\r\n/i);
      await once(socket, 'close');
    }
  });

  it('a client that sends its body without waiting keeps its connection: answered, then the request behind it (HTTP edges audit)', async () => {
    const { key } = await createTestKey();
    const body = '{"input":"one segment"}';
    const socket = connect((server.address() as AddressInfo).port, '127.0.0.1');
    socket.write(`${expectingHead(`Bearer ${key}`, body.length)}${body}GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n`);
    let received = '';
    const finals = () => received.match(/HTTP\/1\.1 [2-5]\d\d /g) ?? [];
    for await (const chunk of socket) {
      received += (chunk as Buffer).toString('latin1');
      if (finals().length === 2) break;
    }
    expect(finals()).toEqual(['HTTP/1.1 200 ', 'HTTP/1.1 200 ']);
    expect(received).not.toMatch(/\r\nConnection: close\r\n/i);
    socket.destroy();
  });

  it('an upload URL refuses a body past its declared size before inviting it (HTTP edges audit: 100, then 413)', async () => {
    const { key } = await createTestKey({
      operations: { 'images.generate': { engine: 'local', units: 1, input_uploads: true } },
      maxUploadBytes: 1_000_000,
    });
    const created = await send('/v1/uploads', {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', 'idempotency-key': newIdempotencyKey() },
      body: JSON.stringify({
        purpose: 'image_input',
        mime_type: 'image/png',
        filename: 'in.png',
        size_bytes: 1000,
        sha256: 'a'.repeat(64),
      }),
    });
    expect(created.status, created.text).toBe(201);
    const url = new URL((JSON.parse(created.text) as { upload_url: string }).upload_url);
    const { socket, text } = await firstAnswer(
      `PUT ${url.pathname}${url.search} HTTP/1.1\r\nHost: x\r\nContent-Type: image/png\r\nContent-Length: 12582912\r\nExpect: 100-continue\r\n\r\n`,
    );
    expect(text).toMatch(/^HTTP\/1\.1 413 /);
    socket.destroy();
  });

  it('a request the edge passes on is told to go on, and served', async () => {
    const { key } = await createTestKey();
    const body = '{"input":"hello"}';
    const { socket, text } = await firstAnswer(expectingHead(`Bearer ${key}`, body.length));
    expect(text).toBe('HTTP/1.1 100 Continue\r\n\r\n');
    const answered = once(socket, 'data');
    socket.write(body);
    const [chunk] = (await answered) as [Buffer];
    expect(chunk.toString('latin1')).toMatch(/^HTTP\/1\.1 200 /);
    socket.destroy();
  });
});

describe('slow clients', () => {
  it("are answered 408 within a few seconds of the headers' deadline, not up to 30 s after it (Node's default check; security audit)", async () => {
    const headersTimeout = server.headersTimeout;
    server.headersTimeout = 1_000;
    try {
      const socket = connect((server.address() as AddressInfo).port, '127.0.0.1');
      socket.write('GET /healthz HTTP/1.1\r\nHost: x\r\n'); // and the rest never comes
      const started = Date.now();
      const [answer] = (await once(socket, 'data')) as [Buffer];
      expect(answer.toString('latin1')).toMatch(/^HTTP\/1\.1 408 /);
      expect(Date.now() - started).toBeLessThan(8_000);
      socket.destroy();
    } finally {
      server.headersTimeout = headersTimeout;
    }
  }, 40_000);
});
