import { once } from 'node:events';
import { connect } from 'node:net';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testDatabaseUrl } from '../../setup/test-database';
import { createTestKey } from '../../helpers/api';
import { parsePrometheusText, sampleValue } from '../../helpers/prometheus-text';
import { waitFor } from '../support/processes';
import {
  createDatabase,
  ensureBuild,
  freePorts,
  killAllProducts,
  newKey,
  post,
  startProduct,
  useDatabaseInThisProcess,
  type Product,
  type TestDatabase,
} from '../support/product/product';

// The real product (`npm start`): the counts the routes record are those METRICS_PORT serves
// (one registry per process, whichever bundle records), each /v1 request is one JSON line on
// stdout within a second of its request, a clean stop writes the refused counts still in memory, and
// a stdout nobody reads (or nobody at all) holds no request up.

let database: TestDatabase;
let product: Product;
let metricsPort: number;

beforeAll(async () => {
  ensureBuild();
  database = await createDatabase('wgs_observe');
  await useDatabaseInThisProcess(database.url);
  const [port, metrics] = await freePorts(2);
  metricsPort = metrics!;
  // A flush interval longer than the test: only the stop writes the counts.
  product = await startProduct({
    databaseUrl: database.url,
    port,
    env: { METRICS_PORT: String(metricsPort), REFUSALS_FLUSH_MS: '300000', LOG_FORMAT: 'json' },
  });
}, 240_000);

afterAll(async () => {
  killAllProducts();
  await useDatabaseInThisProcess(testDatabaseUrl());
  await database?.drop().catch(() => {});
});

/** The request log lines the product wrote so far for the key `secret`. */
function logLinesOf(secret: string) {
  return linesFrom(product.output(), secret);
}

function linesFrom(output: string, secret: string) {
  return output
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line))
    .filter((line) => line.key_prefix === secret.slice(0, 13));
}

/** POST /v1/text/generate asking for the event stream. */
function streamedGenerate(base: string, key: string, input: string): Promise<Response> {
  return fetch(`${base}/v1/text/generate`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${key}`,
      'content-type': 'application/json',
      'idempotency-key': newKey(),
      accept: 'text/event-stream',
    },
    body: JSON.stringify({ input }),
  });
}

describe('observability of a running instance', () => {
  it('logs a client that hung up inside its body as its own 400, not as an outage (503)', async () => {
    const key = await createTestKey();
    const { hostname, port } = new URL(product.base);
    const socket = connect(Number(port), hostname);
    await once(socket, 'connect');
    const head = [
      'POST /v1/text/generate HTTP/1.1',
      `Host: ${hostname}:${port}`,
      `Authorization: Bearer ${key.key}`,
      'Content-Type: application/json',
      `Idempotency-Key: ${newKey()}`,
      'Content-Length: 100',
    ];
    socket.write(`${head.join('\r\n')}\r\n\r\n{"input":`);
    await new Promise((resolve) => setTimeout(resolve, 200));
    socket.destroy();
    const lines = () => logLinesOf(key.key);
    const [line] = await waitFor('its line', () => (lines().length > 0 ? lines() : undefined), 5_000);
    expect([line.status, line.code, line.units]).toEqual([400, 'invalid_request', 0]);
  });

  it('serves metrics on METRICS_PORT, logs one line per request, and writes the refused counts at a clean stop', async () => {
    const key = await createTestKey();
    for (let i = 0; i < 3; i++) expect((await post(product.base, '/v1/text/generate', key.key, { input: '' }, newKey())).status).toBe(422);
    expect((await post(product.base, '/v1/text/generate', key.key, { input: 'hello' }, newKey())).status).toBe(200);

    const exposition = parsePrometheusText(await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text());
    const route = { route: '/v1/text/generate', method: 'POST' };
    expect(sampleValue(exposition, 'wgs_http_request_duration_seconds_count', { ...route, status: '422', code: 'validation_error' })).toBe(
      3,
    );
    expect(sampleValue(exposition, 'wgs_http_request_duration_seconds_count', { ...route, status: '200', code: '' })).toBe(1);
    expect(sampleValue(exposition, 'wgs_units_charged_total', { package: key.slug, operation: 'text.generate' })).toBe(1);
    // The paid call's two writes, each timed once; the refused calls wrote nothing.
    for (const statement of ['wgs_batch_reserve_paid', 'wgs_batch_capture_hold']) {
      expect(sampleValue(exposition, 'wgs_db_write_seconds_count', { statement })).toBe(1);
      expect(sampleValue(exposition, 'wgs_db_write_seconds_sum', { statement })).toBeGreaterThan(0);
    }
    // Without METRICS_TOKEN the app's own port has no /metrics.
    expect((await fetch(`${product.base}/metrics`)).status).toBe(404);

    // Each line reaches stdout within a second of its request (the log gathers lines into larger
    // writes), before any stop.
    const mine = () => logLinesOf(key.key);
    await waitFor('the four lines', () => (mine().length >= 4 ? true : undefined), 5_000);
    expect(mine()).toHaveLength(4);

    const client = new pg.Client({ connectionString: database.url });
    await client.connect();
    try {
      const count = async () =>
        (
          await client.query<{ n: number }>('SELECT COALESCE(sum(count), 0)::int AS n FROM refused_requests WHERE api_key_id = $1', [
            key.id,
          ])
        ).rows[0]!.n;
      expect(await count()).toBe(0);
      await product.stop();
      expect(await count()).toBe(3);
    } finally {
      await client.end();
    }

    const lines = mine();
    expect(lines.map((line) => [line.status, line.code ?? null])).toEqual([
      [422, 'validation_error'],
      [422, 'validation_error'],
      [422, 'validation_error'],
      [200, null],
    ]);
    expect(lines[3]).toMatchObject({
      msg: 'request',
      route: '/v1/text/generate',
      operation: 'text.generate',
      units: 1,
      engine: 'local',
      package: key.slug,
    });
    expect(product.output()).not.toContain(key.key);
    expect(product.output()).not.toContain('hello');
  });

  it('keeps answering while nobody reads its stdout, writes the lines gathered meanwhile once someone does, and serves on without them once stdout is closed', async () => {
    const quiet = await startProduct({ databaseUrl: database.url, env: { LOG_FORMAT: 'json' } });
    try {
      const key = await createTestKey();
      const lines = () =>
        quiet
          .output()
          .split('\n')
          .filter((line) => line.includes(`"key_prefix":"${key.key.slice(0, 13)}"`)).length;
      // The reader stops: the pipe (64 KB) and the reader's buffer fill after a few hundred lines;
      // from then on each write of the log finds the pipe full (EAGAIN).
      quiet.child.stdout!.pause();
      const calls = 3_000;
      const statuses: number[] = [];
      for (let sent = 0; sent < calls; sent += 50) {
        const replies = await Promise.all(
          Array.from({ length: 50 }, () => post(quiet.base, '/v1/text/generate', key.key, { input: '' }, newKey(), 10_000)),
        );
        statuses.push(...replies.map((reply) => reply.status));
      }
      expect(statuses.filter((status) => status === 422)).toHaveLength(calls);
      expect(lines()).toBeLessThan(calls);

      quiet.child.stdout!.resume();
      await waitFor('the gathered lines', () => (lines() >= calls ? true : undefined), 10_000);
      expect(lines()).toBe(calls);

      // The reader goes away: the calls are answered all the same, and stderr says once that the log stopped.
      quiet.child.stdout!.destroy();
      for (let i = 0; i < 20; i++)
        expect((await post(quiet.base, '/v1/text/generate', key.key, { input: '' }, newKey(), 10_000)).status).toBe(422);
      await new Promise((resolve) => setTimeout(resolve, 2_500));
      expect((await post(quiet.base, '/v1/text/generate', key.key, { input: '' }, newKey(), 10_000)).status).toBe(422);
      expect(quiet.output().match(/request log stopped: /g)).toHaveLength(1);
    } finally {
      await quiet.stop();
    }
  }, 120_000);

  it('logs a streamed answer once it is over: the units it was charged and its whole time (outside audit: units 0, at its start)', async () => {
    // An instance of its own: the metrics above count every call of theirs.
    const streaming = await startProduct({ databaseUrl: database.url, env: { LOG_FORMAT: 'json' } });
    const key = await createTestKey();
    const response = await streamedGenerate(streaming.base, key.key, 'A story about a lighthouse keeper, told slowly. '.repeat(20));
    const started = performance.now();
    expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/);
    expect(await response.text()).toContain('event: done');
    const streamedMs = performance.now() - started;
    const linesOf = () => linesFrom(streaming.output(), key.key);
    await waitFor("the stream's line", () => (linesOf().length > 0 ? true : undefined), 5_000);
    const [line] = linesOf();
    await streaming.stop();
    expect(line).toMatchObject({ status: 200, units: 1, operation: 'text.generate' });
    expect(line.duration_ms).toBeGreaterThanOrEqual(Math.floor(streamedMs) - 1);
  });

  it("logs and counts a stream answered 200 that ended in an error event with that event's code (outside audit: as a success)", async () => {
    const token = 'stream-metrics-token-0123456789';
    const streaming = await startProduct({ databaseUrl: database.url, env: { LOG_FORMAT: 'json', METRICS_TOKEN: token } });
    try {
      const key = await createTestKey({
        providers: { streamdown: { type: 'openai-compatible', base_url: 'http://127.0.0.1:9/v1' } },
        operations: { 'text.generate': { engine: 'streamdown:m', units: 1 } },
      });
      const response = await streamedGenerate(streaming.base, key.key, 'never answered');
      expect(response.status).toBe(200);
      expect(await response.text()).toMatch(/event: error\ndata: \{"error":\{"code":"provider_unavailable"/);
      await waitFor("the stream's line", () => (linesFrom(streaming.output(), key.key).length > 0 ? true : undefined), 5_000);
      expect(linesFrom(streaming.output(), key.key)[0]).toMatchObject({ status: 200, code: 'provider_unavailable', units: 0 });
      const metrics = await fetch(`${streaming.base}/metrics`, { headers: { authorization: `Bearer ${token}` } });
      const exposition = parsePrometheusText(await metrics.text());
      const line = { route: '/v1/text/generate', method: 'POST', status: '200' };
      expect(sampleValue(exposition, 'wgs_http_request_duration_seconds_count', { ...line, code: 'provider_unavailable' })).toBe(1);
      expect(sampleValue(exposition, 'wgs_http_request_duration_seconds_count', { ...line, code: '' })).toBeUndefined();
    } finally {
      await streaming.stop();
    }
  });
});
