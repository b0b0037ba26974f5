import { once } from 'node:events';
import { connect, type AddressInfo } from 'node:net';
import { PassThrough } from 'node:stream';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { resetConfigForTests } from '@/server/config';
import { getPrisma } from '@/server/db/client';
import { createDirectDispatch } from '@/server/http/edge/direct-dispatch';
import { createEdgeServer } from '@/server/http/edge/edge-server';
import { apiPaths } from '@/server/http/edge/normalize-request';
import { enableMetrics } from '@/server/observability/metrics';
import { createRequestLogger, useRequestLogger } from '@/server/observability/request-log';
import { serviceApp, servesTarget, SURFACE_PREFIXES } from '@/server/surfaces/service-app';
import { createTestKey, newIdempotencyKey, remainingUnits } from '../helpers/api';
import { parsePrometheusText } from '../helpers/prometheus-text';
import { withFakeOpenAi } from './support/providers/fake-openai-server';

// A client that leaves a stream before its first piece, on either surface, through npm start's
// server (createEdgeServer with the service's app) and a raw socket: its engine call is aborted (or
// never made), nothing is charged, and its hold is never marked delivered. A half-close (FIN after
// the request) is such a departure: the server cannot tell it from a client that closed its socket,
// so it answers nothing (docs/api.md). Outside audit: on /openai/v1 a client gone before the stream
// began was missed, the provider read to its end and the hold marked delivered for bytes never written.
// Its log line and request metric say 499 client_disconnected (review: 503 provider_unavailable, an outage's).

process.env.PROVIDER_MAX_RETRIES = '0';
resetConfigForTests();
const fake = withFakeOpenAi({ WGS_PROVIDER_KEY_FAKE_GONE: 'sk-fake-gone-secret-0123456789' });
let server: ReturnType<typeof createEdgeServer>;
let port: number;

const logLines: { key_prefix?: string; status?: number; code?: string; units?: number }[] = [];

beforeAll(async () => {
  const log = new PassThrough();
  log.on('data', (chunk: Buffer) =>
    logLines.push(
      ...chunk
        .toString('utf8')
        .split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line)),
    ),
  );
  useRequestLogger(createRequestLogger('json', log));
  await enableMetrics();
  const app = { serves: servesTarget, dispatch: createDirectDispatch(serviceApp) };
  server = createEdgeServer(async () => {}, { isApiPath: apiPaths(SURFACE_PREFIXES), app });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  port = (server.address() as AddressInfo).port;
});
afterAll(() => {
  useRequestLogger(null);
  server?.close();
});
beforeEach(() => {
  fake.reset();
  fake.setReply('one two three four five');
  fake.setMode({ kind: 'drip', ms: 200 }); // each word 200 ms after the one before, the first too
});

const SURFACES = {
  openai: {
    path: '/openai/v1/chat/completions',
    accept: 'application/json',
    body: { model: 'text.generate', stream: true, messages: [{ role: 'user', content: 'Leave before the first chunk' }] },
  },
  v1: { path: '/v1/text/generate', accept: 'text/event-stream', body: { input: 'Leave before the first delta' } },
};

/** Sends the request on a socket of its own, leaves as `leave` says, and resolves with every byte the server sent. */
function leaveStream(surface: keyof typeof SURFACES, key: string, leave: (socket: ReturnType<typeof connect>) => void): Promise<string> {
  const { path, accept, body } = SURFACES[surface];
  const text = JSON.stringify(body);
  const socket = connect(port, '127.0.0.1');
  const received: Buffer[] = [];
  socket.on('data', (chunk: Buffer) => received.push(chunk));
  socket.on('error', () => {});
  socket.once('connect', () => {
    const head = [`POST ${path} HTTP/1.1`, 'Host: 127.0.0.1', `Authorization: Bearer ${key}`, `Idempotency-Key: ${newIdempotencyKey()}`];
    const entity = [`Accept: ${accept}`, 'Content-Type: application/json', `Content-Length: ${Buffer.byteLength(text)}`];
    socket.write([...head, ...entity, '', text].join('\r\n'));
    leave(socket);
  });
  return new Promise((resolve) => socket.once('close', () => resolve(Buffer.concat(received).toString())));
}

const providerKey = () =>
  createTestKey({
    quota: 10,
    providers: { fake: { type: 'openai-compatible', base_url: fake.baseUrl, api_key_env: 'WGS_PROVIDER_KEY_FAKE_GONE' } },
    operations: { 'text.generate': { engine: 'fake:model-g', units: 2 } },
  });

/** The request metric's count of answers to `path` that were 499 client_disconnected. */
async function clientGoneCount(path: string): Promise<number> {
  const { registry } = await enableMetrics();
  const { samples } = parsePrometheusText(await registry.metrics());
  const counted = samples.find(
    (sample) =>
      sample.name === 'wgs_http_request_duration_seconds_count' &&
      sample.labels.route === path &&
      sample.labels.status === '499' &&
      sample.labels.code === 'client_disconnected',
  );
  return counted?.value ?? 0;
}

/** Once the request settled: nothing charged, the hold released and never marked delivered; logged and counted as a client gone. */
async function expectNothingCharged(id: string, key: string, path: string, goneBefore: number) {
  const usage = () => getPrisma().usageEvent.findMany({ where: { apiKeyId: id } });
  await expect.poll(async () => (await usage()).length, { timeout: 10_000 }).toBe(1);
  expect((await usage()).map((e) => [e.outcome, e.units, e.errorCode])).toEqual([['failed', 0, 'client_disconnected']]);
  const holds = await getPrisma().unitHold.findMany({ where: { apiKeyId: id } });
  expect(holds.map((h) => [h.status, h.deliveredAt])).toEqual([['released', null]]);
  expect(await remainingUnits(id)).toBe(10);
  expect(fake.streamsFinished, 'the provider was not read to its end').toBe(0);
  const lines = () => logLines.filter((line) => line.key_prefix === key.slice(0, 13));
  await expect.poll(() => lines().length, { timeout: 5_000 }).toBe(1);
  expect(lines().map((line) => [line.status, line.code, line.units])).toEqual([[499, 'client_disconnected', 0]]);
  expect(await clientGoneCount(path)).toBe(goneBefore + 1);
}

describe.each(Object.keys(SURFACES) as (keyof typeof SURFACES)[])(
  'a client that leaves a stream on %s before its first piece',
  (surface) => {
    it('half-closed at once: answered nothing, its engine never called, nothing charged', async () => {
      const { key, id } = await providerKey();
      const goneBefore = await clientGoneCount(SURFACES[surface].path);
      expect(await leaveStream(surface, key, (socket) => socket.end()), 'a half-close is a client gone').toBe('');
      await expectNothingCharged(id, key, SURFACES[surface].path, goneBefore);
      expect(fake.callCount).toBe(0);
    });

    it('closed once its engine call began: the call aborted, nothing charged', async () => {
      const { key, id } = await providerKey();
      const goneBefore = await clientGoneCount(SURFACES[surface].path);
      const called = expect.poll(() => fake.callCount).toBe(1);
      expect(await leaveStream(surface, key, (socket) => void called.then(() => socket.destroy()))).not.toContain('data:');
      await expectNothingCharged(id, key, SURFACES[surface].path, goneBefore);
      expect(fake.streamsAbandoned, 'the provider call was aborted').toBe(1);
    });
  },
);
