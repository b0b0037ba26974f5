import { createHash } from 'node:crypto';
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testDatabaseUrl } from '../setup/test-database';
import { createTestKey, type TestKey } from '../helpers/api';
import {
  createDatabase,
  ensureBuild,
  killAllProducts,
  newKey,
  startProduct,
  useDatabaseInThisProcess,
  type Product,
  type TestDatabase,
} from './support/product/product';

// Both ways of serving /v1 answer alike: `npm start` (its direct dispatcher) and `npm start
// --v1-through-next` (Next's router, as under `next dev`), on one database. One request of every
// route and every status it can answer goes to each, as raw HTTP/1.1; status, headers (less Date,
// X-Request-Id and the connection's own) and body must be the same, once the values that differ
// by nature (request ids, the per-server keys, fresh ids and times) are replaced by placeholders.
// The framing may differ (Next sends some short bodies chunked, the direct path with their length):
// both are HTTP/1.1's, and the bodies they carry are compared.

let database: TestDatabase;
const servers: Record<'direct' | 'next', Product> = {} as never;
const keys: Record<'direct' | 'next', Record<string, TestKey>> = { direct: {}, next: {} };
let shared: TestKey;

const MEDIA_OPS = {
  'text.generate': { engine: 'local', units: 1, output_formats: ['text', 'markdown', 'json'] },
  'code.generate': { engine: 'local', units: 2 },
  'images.generate': { engine: 'local', units: 1 },
  'audio.speech': { engine: 'local', units: 1, output_formats: ['wav'] },
};

async function keySet(): Promise<Record<string, TestKey>> {
  return {
    full: await createTestKey({ operations: MEDIA_OPS, maxUploadBytes: 1_048_576 }),
    textOnly: await createTestKey({ operations: { 'text.generate': MEDIA_OPS['text.generate'] } }),
    broke: await createTestKey({ quota: 0 }),
    slow: await createTestKey({ rpm: 1 }),
  };
}

beforeAll(async () => {
  ensureBuild();
  database = await createDatabase('wgs_parity');
  await useDatabaseInThisProcess(database.url);
  const env = { LOG_FORMAT: 'off' };
  [servers.direct, servers.next] = await Promise.all([
    startProduct({ databaseUrl: database.url, env }),
    startProduct({ databaseUrl: database.url, env, args: ['--v1-through-next'] }),
  ]);
  keys.direct = await keySet();
  keys.next = await keySet();
  shared = await createTestKey();
}, 300_000);

afterAll(async () => {
  killAllProducts();
  await useDatabaseInThisProcess(testDatabaseUrl());
  await database?.drop().catch(() => {});
});

interface Answer {
  status: number;
  headers: [string, string][];
  body: string;
}

/** Sends `raw` on a fresh connection and reads the answer until the server closes it. */
function exchange(port: number, raw: string | Buffer): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => socket.write(raw)); // Connection: close ends it
    const chunks: Buffer[] = [];
    socket.on('data', (chunk) => chunks.push(chunk));
    socket.on('error', (error: NodeJS.ErrnoException) =>
      error.code === 'EPIPE' || error.code === 'ECONNRESET' ? undefined : reject(error),
    );
    socket.on('close', () => resolve(Buffer.concat(chunks).toString('latin1')));
    socket.setTimeout(30_000, () => socket.destroy(new Error('no answer in 30 s')));
  });
}

function dechunk(body: string): string {
  let out = '';
  let rest = body;
  for (;;) {
    const lineEnd = rest.indexOf('\r\n');
    const size = parseInt(rest.slice(0, lineEnd), 16);
    if (!size) return out;
    out += rest.slice(lineEnd + 2, lineEnd + 2 + size);
    rest = rest.slice(lineEnd + 2 + size + 2);
  }
}

const IGNORED = new Set(['date', 'x-request-id', 'connection', 'keep-alive', 'transfer-encoding', 'content-length']);
const TICKING = new Set(['ratelimit', 'ratelimit-reset', 'retry-after']);
const FRAMEWORK_VARY = /^(?:rsc|next-.+)$/i;

function parse(text: string): Answer {
  const headEnd = text.indexOf('\r\n\r\n');
  const [statusLine, ...lines] = text.slice(0, headEnd).split('\r\n');
  const headers = lines.map((line): [string, string] => [
    line.slice(0, line.indexOf(':')).toLowerCase(),
    line.slice(line.indexOf(':') + 1).trim(),
  ]);
  const raw = text.slice(headEnd + 4);
  const chunked = headers.some(([name, value]) => name === 'transfer-encoding' && value === 'chunked');
  return { status: Number(statusLine!.split(' ')[1]), headers, body: Buffer.from(chunked ? dechunk(raw) : raw, 'latin1').toString('utf8') };
}

/** The answer with what differs by nature replaced: ids, times, the server's own keys. */
function comparable(answer: Answer, own: Record<string, TestKey>): Answer {
  let body = answer.body;
  for (const [name, key] of Object.entries(own)) {
    body = body.split(key.key).join(`<${name}.key>`).split(key.id).join(`<${name}.id>`).split(key.slug).join(`<${name}.slug>`);
    body = body.split(key.key.slice(0, 13)).join(`<${name}.prefix>`);
  }
  body = body
    .replace(/req_[A-Za-z0-9_-]+/g, '<request id>')
    .replace(/\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?Z/g, '<time>')
    .replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g, '<uuid>')
    .replace(/\b(gen|job|upl|file)_[A-Za-z0-9]+/g, '<$1 id>')
    .replace(/\b(exp|sig|n)=[A-Za-z0-9_%-]+/g, '$1=<…>')
    .replace(/"(created|duration_ms|latency_ms)":\d+/g, '"$1":<n>');
  // The seconds left in the rate window tick between the two requests. Next's router says the
  // probes' answers vary on its own request headers (RSC, Next-Router-*): they mean nothing to
  // the direct path, and the edge drops them on /v1 already.
  const headers = answer.headers
    .filter(
      ([name, value]) => !IGNORED.has(name) && !(name === 'vary' && value.split(',').every((entry) => FRAMEWORK_VARY.test(entry.trim()))),
    )
    .map(([name, value]): [string, string] => [name, TICKING.has(name) ? value.replace(/\d+$/, '<s>') : value])
    .sort(([a], [b]) => a.localeCompare(b));
  return { ...answer, headers, body };
}

type Case = (own: Record<string, TestKey>) => string | Buffer;

const HOST = 'Host: api.example.test\r\nConnection: close\r\n';
const json = (path: string, key: string | null, body: string, extra = '', idem: string | null = newKey('parity')) =>
  `POST ${path} HTTP/1.1\r\n${HOST}${key ? `Authorization: Bearer ${key}\r\n` : ''}Content-Type: application/json\r\n` +
  `${idem ? `Idempotency-Key: ${idem}\r\n` : ''}${extra}Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;
const get = (path: string, key: string | null, method = 'GET', extra = '') =>
  `${method} ${path} HTTP/1.1\r\n${HOST}${key ? `Authorization: Bearer ${key}\r\n` : ''}${extra}\r\n`;
const TEXT = '{"input":"Say hello"}';

const REPLAY_KEY = newKey('parity-replay');
const STREAM_REPLAY_KEY = newKey('parity-stream-replay');

/**
 * Where the direct path answers as documented and Next's router did not: with TRUST_PROXY unset,
 * Next built the request's URL with a client's X-Forwarded-Proto (so `servers` said https).
 */
const KNOWN_DIFFERENCES: Record<string, (nextBody: string) => string> = {
  'openapi, forwarded host': (body) => body.replace('"url":"https://api.example.test"', '"url":"http://api.example.test"'),
};

const CASES: Record<string, Case> = {
  'text 200': (k) => json('/v1/text/generate', k.full!.key, TEXT),
  'text 200, trailing slash': (k) => json('/v1/text/generate/', k.full!.key, TEXT),
  'text 200 streamed': (k) => json('/v1/text/generate', k.full!.key, TEXT, 'Accept: text/event-stream\r\n'),
  'text replay': () => json('/v1/text/generate', shared.key, TEXT, '', REPLAY_KEY),
  'text replay streamed': () => json('/v1/text/generate', shared.key, TEXT, 'Accept: text/event-stream\r\n', STREAM_REPLAY_KEY),
  'text 409 key reused': () => json('/v1/text/generate', shared.key, '{"input":"another"}', '', REPLAY_KEY),
  'text 401 no key': () => json('/v1/text/generate', null, TEXT),
  'text 401 unknown key': () => json('/v1/text/generate', `wgs_live_${'x'.repeat(40)}`, TEXT),
  'text 401 repeated authorization': (k) => json('/v1/text/generate', k.full!.key, TEXT, `Authorization: Bearer ${k.textOnly!.key}\r\n`),
  'text 402 no units': (k) => json('/v1/text/generate', k.broke!.key, TEXT),
  'code 403 not sold': (k) => json('/v1/code/generate', k.textOnly!.key, '{"input":"x","task":"explain"}'),
  'text 415': (k) => json('/v1/text/generate', k.full!.key, TEXT).replace('application/json', 'text/plain'),
  'text 400 no idempotency key': (k) => json('/v1/text/generate', k.full!.key, TEXT, '', null),
  'text 400 bad json': (k) => json('/v1/text/generate', k.full!.key, '{"input":'),
  'text 400 repeated member': (k) => json('/v1/text/generate', k.full!.key, '{"input":"a","input":"b"}'),
  'text 413': (k) => json('/v1/text/generate', k.full!.key, TEXT).replace(/Content-Length: \d+/, 'Content-Length: 2000000'),
  'text 413 chunked': (k) => {
    const big = `{"input":"${'x'.repeat(1_100_000)}"}`;
    const head = json('/v1/text/generate', k.full!.key, '').replace(/Content-Length: \d+\r\n/, 'Transfer-Encoding: chunked\r\n');
    return `${head}${big.length.toString(16)}\r\n${big}\r\n0\r\n\r\n`;
  },
  'text 422': (k) => json('/v1/text/generate', k.full!.key, '{"input":""}'),
  'text 429': (k) => json('/v1/text/generate', k.slow!.key, TEXT),
  'text 405 GET': (k) => get('/v1/text/generate', k.full!.key),
  'text 405 TRACE': () => get('/v1/text/generate', null, 'TRACE'),
  'text 405 OPTIONS': () => get('/v1/text/generate', null, 'OPTIONS'),
  'text 405 HEAD': () => get('/v1/text/generate', null, 'HEAD'),
  'text, merged slashes': (k) => json('/v1//text/generate', k.full!.key, '{"input":""}'),
  'text, RSC header': (k) => json('/v1/text/generate', k.full!.key, '{"input":""}', 'RSC: 1\r\nNext-Router-Prefetch: 1\r\n'),
  'text, absolute form': (k) => json('http://other.example.test/v1/text/generate', k.full!.key, '{"input":""}'),
  'text, dot segments': (k) => json('/x/%2e%2e/v1/text/generate', k.full!.key, '{"input":""}'),
  'text, unknown expectation': (k) => json('/v1/text/generate', k.full!.key, '{"input":""}', 'Expect: something-else\r\n'),
  'code 200': (k) => json('/v1/code/generate', k.full!.key, '{"input":"def f(): pass","task":"explain"}'),
  'images 422': (k) => json('/v1/images/generate', k.full!.key, '{}'),
  'images 403': (k) => json('/v1/images/generate', k.textOnly!.key, '{"prompt":"a cat"}'),
  'videos 403': (k) => json('/v1/videos/generate', k.full!.key, '{"prompt":"a cat"}'),
  'speech 200': (k) => json('/v1/audio/speech', k.full!.key, '{"text":"hi","output_format":"wav"}'),
  'transcribe 422': (k) => json('/v1/audio/transcribe', k.full!.key, '{}'),
  'uploads 201': (k) => json('/v1/uploads', k.full!.key, '{"filename":"a.png","content_type":"image/png","size_bytes":10}'),
  'uploads 403': (k) => json('/v1/uploads', k.textOnly!.key, '{"filename":"a.png","content_type":"image/png","size_bytes":10}'),
  'upload URL 404': () =>
    `PUT /uploads/upl_missing?exp=1&sig=x HTTP/1.1\r\n${HOST}Content-Type: image/png\r\nContent-Length: 4\r\n\r\nabcd`,
  'upload URL 405': () => get('/uploads/upl_missing?exp=1&sig=x', null),
  'upload complete 404': (k) => json('/v1/uploads/upl_missing/complete', k.full!.key, `{"sha256":"${'0'.repeat(64)}"}`),
  'job 404': (k) => get('/v1/jobs/job_missing', k.full!.key),
  'job HEAD 404': (k) => get('/v1/jobs/job_missing', k.full!.key, 'HEAD'),
  'job cancel 404': (k) => json('/v1/jobs/job_missing/cancel', k.full!.key, '{}'),
  'job cancel 405': (k) => get('/v1/jobs/job_missing/cancel', k.full!.key),
  'key 200': (k) => get('/v1/key', k.full!.key),
  'key HEAD': (k) => get('/v1/key', k.full!.key, 'HEAD'),
  'key 401': () => get('/v1/key', null),
  'key 405': (k) => json('/v1/key', k.full!.key, '{}'),
  'openapi 200': () => get('/v1/openapi.json', null),
  'openapi, forwarded host': () =>
    get('/v1/openapi.json', null, 'GET', 'X-Forwarded-Host: public.example.test\r\nX-Forwarded-Proto: https\r\n'),
  '404 unknown path': (k) => get('/v1/nothing/here', k.full!.key),
  '404 /v1': () => get('/v1', null),
  '404 undecodable path': () => get('/v1/%zz', null, 'POST'),
  '404 case': () => get('/v1/Text/generate', null, 'POST'),
  healthz: () => get('/healthz', null),
  'healthz HEAD': () => get('/healthz', null, 'HEAD'),
  'healthz POST': () => get('/healthz', null, 'POST'),
  readyz: () => get('/readyz', null),
  CONNECT: () => `CONNECT api.example.test:443 HTTP/1.1\r\n${HOST}\r\n`,
  'OPTIONS *': () => `OPTIONS * HTTP/1.1\r\n${HOST}\r\n`,
  'no Host': () => 'GET /v1/key HTTP/1.1\r\nConnection: close\r\n\r\n',
  'bad framing': () => `POST /v1/text/generate HTTP/1.1\r\n${HOST}Transfer-Encoding: chunked\r\n\r\nzz\r\n`,
};

describe('the direct path and Next’s router answer alike', () => {
  it('stores the answers that the replay cases replay', async () => {
    for (const [idem, accept] of [
      [REPLAY_KEY, ''],
      [STREAM_REPLAY_KEY, 'Accept: text/event-stream\r\n'],
    ]) {
      const first = parse(await exchange(servers.direct.port, json('/v1/text/generate', shared.key, TEXT, accept, idem)));
      expect(first.status).toBe(200);
    }
  });

  it.each(Object.keys(CASES))('%s', async (name) => {
    const answerOf = async (via: 'direct' | 'next') =>
      comparable(parse(await exchange(servers[via].port, CASES[name]!(keys[via]))), keys[via]);
    const [direct, next] = await Promise.all([answerOf('direct'), answerOf('next')]);
    expect(direct.status).toBe(next.status);
    expect(direct.headers).toEqual(next.headers);
    expect(direct.body).toBe(KNOWN_DIFFERENCES[name]?.(next.body) ?? next.body);
  });

  it('believes X-Forwarded-Proto only with TRUST_PROXY, where Next’s router believed it always', async () => {
    const direct = parse(await exchange(servers.direct.port, CASES['openapi, forwarded host']!(keys.direct)));
    expect(JSON.parse(direct.body).servers).toEqual([{ url: 'http://api.example.test' }]);
  });
});

describe('npm start, as a client meets it', () => {
  it('reads a target with dot segments as its path: an API path stays the API’s, its framework headers dropped', async () => {
    const prefetch = 'X-Middleware-Prefetch: 1\r\nRSC: 1\r\n';
    for (const target of ['/x/../v1/key', '/./v1/key', '/.%2e/v1/key', '/x/%2E%2E/openai/v1/models']) {
      const answer = parse(await exchange(servers.direct.port, get(target, null, 'GET', prefetch)));
      expect([target, answer.status, JSON.parse(answer.body).error.code]).toEqual([target, 401, 'invalid_api_key']);
      expect(answer.headers).toContainEqual(['cache-control', 'no-store']);
    }
  });

  it('serves pipelined requests one after another: the second of two alike is the first’s replay', async () => {
    const idem = newKey('pipelined');
    const keepAlive = (raw: string) => raw.replace('Connection: close\r\n', '');
    const first = keepAlive(json('/v1/text/generate', keys.direct.full!.key, TEXT, '', idem));
    const raw = await exchange(servers.direct.port, first + json('/v1/text/generate', keys.direct.full!.key, TEXT, '', idem));
    expect(raw.match(/HTTP\/1\.1 \d{3}/g)).toEqual(['HTTP/1.1 200', 'HTTP/1.1 200']);
    expect(raw.match(/\r\nidempotent-replayed: true\r\n/gi)).toHaveLength(1);
  });

  it('reads a percent-encoded letter as the letter, in the route and in the idempotency scope', async () => {
    const idem = newKey('encoded');
    const plain = parse(await exchange(servers.direct.port, json('/v1/text/generate', keys.direct.full!.key, TEXT, '', idem)));
    const encoded = parse(await exchange(servers.direct.port, json('/v1/%74ext/generat%65', keys.direct.full!.key, TEXT, '', idem)));
    expect([plain.status, encoded.status, encoded.body]).toEqual([200, 200, plain.body]);
    expect(encoded.headers).toContainEqual(['idempotent-replayed', 'true']);
  });

  it('serves a request with an expectation it does not know, in the envelope (no bare 417)', async () => {
    const answer = parse(
      await exchange(servers.direct.port, json('/v1/text/generate', keys.direct.full!.key, TEXT, 'Expect: something-else\r\n')),
    );
    expect([answer.status, typeof JSON.parse(answer.body).output.text]).toEqual([200, 'string']);
  });
});

describe('output URLs, served without Next', () => {
  /** The raw answer's head as [name, value] pairs, and how many bytes followed it. */
  const split = (raw: string) => {
    const headEnd = raw.indexOf('\r\n\r\n');
    const { status, headers } = parse(raw);
    const header = (name: string) => headers.find(([n]) => n === name)?.[1];
    return { status, header, bodyBytes: raw.length - headEnd - 4 }; // latin1: a character per byte
  };

  it('carry their length on GET and HEAD (Next drops it), serve one byte range (206), and refuse other methods with 405 and Allow', async () => {
    const made = parse(await exchange(servers.direct.port, json('/v1/audio/speech', keys.direct.full!.key, '{"text":"Hello there."}')));
    expect(made.status, made.body).toBe(200);
    const url = new URL(JSON.parse(made.body).output.url);
    const target = `${url.pathname}${url.search}`;
    const whole = split(await exchange(servers.direct.port, get(target, null)));
    expect(whole.status).toBe(200);
    expect(whole.header('content-type')).toBe('audio/wav');
    expect(whole.header('transfer-encoding')).toBeUndefined();
    expect(Number(whole.header('content-length'))).toBe(whole.bodyBytes);
    expect(whole.bodyBytes).toBeGreaterThan(44);
    const head = split(await exchange(servers.direct.port, get(target, null, 'HEAD')));
    expect([head.status, head.header('content-length'), head.bodyBytes]).toEqual([200, String(whole.bodyBytes), 0]);
    // One byte range (a player seeking), through npm start's own server too.
    const part = split(await exchange(servers.direct.port, get(target, null, 'GET', 'Range: bytes=0-43\r\n')));
    expect([part.status, part.header('content-range'), part.header('content-length'), part.bodyBytes]).toEqual([
      206,
      `bytes 0-43/${whole.bodyBytes}`,
      '44',
      44,
    ]);
    const post = split(await exchange(servers.direct.port, get(target, null, 'POST')));
    expect([post.status, post.header('allow')]).toEqual([405, 'GET, HEAD']);
    const tampered = split(
      await exchange(
        servers.direct.port,
        get(
          target.replace(/sig=(.)/, (_all, first: string) => `sig=${first === 'A' ? 'B' : 'A'}`),
          null,
        ),
      ),
    );
    expect(tampered.status).toBe(404);
  });
});

describe('upload URLs', () => {
  /** A key that may upload, and its upload of a 1,000-byte WAV (its sha256 left unchecked). */
  async function newWavUpload(): Promise<{ key: string; made: Answer }> {
    const { key } = await createTestKey({ operations: { 'audio.transcribe': { engine: 'local', units: 1 } }, maxUploadBytes: 1_048_576 });
    const upload = JSON.stringify({
      purpose: 'audio_input',
      filename: 'a.wav',
      mime_type: 'audio/wav',
      size_bytes: 1000,
      sha256: '0'.repeat(64),
    });
    return { key, made: parse(await exchange(servers.direct.port, json('/v1/uploads', key, upload))) };
  }

  it('answer a chunked body past size_bytes 413, and take the next request on the same connection', async () => {
    const { made } = await newWavUpload();
    expect(made.status, made.body).toBe(201);
    const target = new URL((JSON.parse(made.body) as { upload_url: string }).upload_url);
    const piece = Buffer.alloc(50_000, 0x41);
    const chunked = Buffer.concat([
      ...Array.from({ length: 4 }, () => [Buffer.from(`${piece.length.toString(16)}\r\n`), piece, Buffer.from('\r\n')]).flat(),
      Buffer.from('0\r\n\r\n'),
    ]);
    const put = `PUT ${target.pathname}${target.search} HTTP/1.1\r\nHost: api.example.test\r\nContent-Type: audio/wav\r\nTransfer-Encoding: chunked\r\n\r\n`;
    // Before, the refused body was left unread and the next request waited out the server's timeout (65 s).
    const raw = await exchange(servers.direct.port, Buffer.concat([Buffer.from(put), chunked, Buffer.from(get('/healthz', null))]));
    expect(raw.match(/HTTP\/1\.1 \d{3}/g)).toEqual(['HTTP/1.1 413', 'HTTP/1.1 200']);
  }, 30_000);

  it('answer a body sent to a finished upload 404, and take the next request on the same connection', async () => {
    const { key } = await createTestKey({ operations: { 'audio.transcribe': { engine: 'local', units: 1 } }, maxUploadBytes: 1_048_576 });
    const bytes = Buffer.alloc(1000);
    bytes.write('RIFF', 0);
    bytes.writeUInt32LE(992, 4);
    bytes.write('WAVE', 8); // what the upload's content check looks for
    const sha256 = createHash('sha256').update(bytes).digest('hex');
    const upload = JSON.stringify({ purpose: 'audio_input', filename: 'a.wav', mime_type: 'audio/wav', size_bytes: 1000, sha256 });
    const made = parse(await exchange(servers.direct.port, json('/v1/uploads', key, upload)));
    expect(made.status, made.body).toBe(201);
    const { upload_id, upload_url } = JSON.parse(made.body) as { upload_id: string; upload_url: string };
    const target = new URL(upload_url);
    const put = (framing: string) =>
      `PUT ${target.pathname}${target.search} HTTP/1.1\r\nHost: api.example.test\r\nContent-Type: audio/wav\r\n${framing}\r\n`;
    const sent = parse(
      await exchange(servers.direct.port, Buffer.concat([Buffer.from(put('Content-Length: 1000\r\nConnection: close\r\n')), bytes])),
    );
    expect(sent.status, sent.body).toBe(200);
    const completed = parse(
      await exchange(servers.direct.port, json(`/v1/uploads/${upload_id}/complete`, key, JSON.stringify({ sha256 }))),
    );
    expect(completed.status, completed.body).toBe(200);
    // Refused before a byte of its body is read, while the client still sends it (the rest goes once the
    // answer is in): a body taken and left unread held the connection 5 s, then closed it.
    const piece = Buffer.alloc(50_000, 0x41);
    const chunk = Buffer.concat([Buffer.from(`${piece.length.toString(16)}\r\n`), piece, Buffer.from('\r\n')]);
    const startedAt = Date.now();
    const raw = await new Promise<string>((resolve, reject) => {
      const socket = connect(servers.direct.port, '127.0.0.1', () =>
        socket.write(Buffer.concat([Buffer.from(put('Transfer-Encoding: chunked\r\n')), chunk])),
      );
      const chunks: Buffer[] = [];
      socket.on('data', (data) => {
        if (chunks.push(data) === 1)
          socket.write(
            Buffer.concat([...Array.from({ length: 8 }, () => chunk), Buffer.from('0\r\n\r\n'), Buffer.from(get('/healthz', null))]),
          );
      });
      socket.on('error', reject);
      socket.on('close', () => resolve(Buffer.concat(chunks).toString('latin1')));
      socket.setTimeout(30_000, () => socket.destroy(new Error('no answer in 30 s')));
    });
    expect(raw.match(/HTTP\/1\.1 \d{3}/g)).toEqual(['HTTP/1.1 404', 'HTTP/1.1 200']);
    expect(Date.now() - startedAt).toBeLessThan(4_000);
  }, 30_000);

  it('read a refused body only so far (16 MiB) and so long (5 s), then close its connection', async () => {
    const { key, made } = await newWavUpload();
    const target = new URL((JSON.parse(made.body) as { upload_url: string }).upload_url);
    const put = (length: number) =>
      `PUT ${target.pathname}${target.search} HTTP/1.1\r\nHost: api.example.test\r\nContent-Type: audio/wav\r\nContent-Length: ${length}\r\n\r\n`;
    // 100 MiB sent as fast as it goes: cut off after 16 MiB (behind Next's body stream it stalled a minute).
    const flood = await sendUntilClosed(servers.direct.port, put(100 * 1024 * 1024), 100 * 1024 * 1024, 0);
    expect(flood.answer).toMatch(/^HTTP\/1\.1 413/);
    expect(flood.sent).toBeLessThan(40 * 1024 * 1024);
    // The same of a /v1 body refused by its Content-Length, unread (Node's own clean-up read all 100 MiB).
    const unread = json('/v1/uploads', key, '')
      .replace(/Content-Length: \d+/, `Content-Length: ${100 * 1024 * 1024}`)
      .replace('Connection: close\r\n', '');
    const refused = await sendUntilClosed(servers.direct.port, unread, 100 * 1024 * 1024, 0);
    expect(refused.answer).toMatch(/^HTTP\/1\.1 413/);
    expect(refused.sent).toBeLessThan(40 * 1024 * 1024);
    // 100 bytes every 50 ms: closed once the body has been arriving for 5 s (it was read on and on).
    const trickle = await sendUntilClosed(servers.direct.port, put(1_000_000), 1_000_000, 50);
    expect(trickle.answer).toMatch(/^HTTP\/1\.1 413/);
    expect(trickle.closedAfterMs).toBeLessThan(15_000);
  }, 60_000);
});

/** Sends `head`, then up to `total` body bytes (64 KiB at once, or 100 bytes every `gapMs`), until the server closes. */
function sendUntilClosed(
  port: number,
  head: string,
  total: number,
  gapMs: number,
): Promise<{ answer: string; sent: number; closedAfterMs: number }> {
  return new Promise((resolve) => {
    const startedAt = Date.now();
    let sent = 0;
    let answer = '';
    const socket = connect(port, '127.0.0.1', () => {
      socket.write(head);
      void send();
    });
    socket.on('data', (chunk) => (answer += chunk.toString('latin1')));
    socket.on('error', () => {});
    socket.on('close', () => resolve({ answer, sent, closedAfterMs: Date.now() - startedAt }));
    async function send(): Promise<void> {
      const piece = Buffer.alloc(gapMs ? 100 : 65_536);
      while (sent < total && !socket.destroyed && Date.now() - startedAt < 30_000) {
        const drained = socket.write(piece);
        sent += piece.length;
        if (gapMs) await new Promise((wake) => setTimeout(wake, gapMs));
        else if (!drained) await new Promise((wake) => socket.once('drain', wake).once('close', wake));
      }
      socket.destroy();
    }
  });
}
