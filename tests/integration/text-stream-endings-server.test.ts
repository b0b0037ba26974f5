import { once } from 'node:events';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testDatabaseUrl } from '../setup/test-database';
import { createTestKey } from '../helpers/api';
import { EventReader, streamHeaders, type StreamEvent } from '../helpers/event-stream';
import { startFakeOpenAi, type FakeOpenAi } from '../../fakes/fake-openai';
import { getSqlDb } from '@/server/db/client';
import { sweepExpiredHolds } from '@/server/domain/billing/sweep-expired-holds';
import { waitFor } from './support/processes';
import {
  books,
  createDatabase,
  ensureBuild,
  killAllProducts,
  newKey,
  startProduct,
  useDatabaseInThisProcess,
  type Product,
  type TestDatabase,
} from './support/product/product';

// Output delivered is output paid for, through the running product (`npm start`'s server), as a
// customer's client meets it: from this machine's non-loopback address (192.0.2.2), streams that
// end badly after a delta (the provider failing, JSON that does not parse) are charged once, end
// with output_interrupted, and their Idempotency-Key replays them without running them again; a
// process killed after the first delta leaves a key that is never taken over and a hold charged once;
// a budget counts the calls of a provider that reports no usage (their cost estimated).

const CLIENT_ADDRESS = '192.0.2.2';
// Short leases, so the killed process's key and hold are taken up within the test; long enough that
// a call on a loaded machine (the first after a restart loads the provider's modules) ends well
// inside them, before the sweeper could take its hold as abandoned.
const LEASE_SECONDS = 20;
const HOLD_LEASE_SECONDS = 21;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

let database: TestDatabase;
let product: Product;
let fake: FakeOpenAi;
const env = {
  HOST: '0.0.0.0',
  IDEMPOTENCY_LEASE_SECONDS: String(LEASE_SECONDS),
  HOLD_LEASE_SECONDS: String(HOLD_LEASE_SECONDS),
  PROVIDER_MAX_RETRIES: '0',
  WGS_PROVIDER_KEY_FAKE_ENDINGS_SERVER: 'sk-fake-endings-server',
  LOG_FORMAT: 'json', // a request's line is read back
};
/** The product as a client on another machine reaches it: through the non-loopback address. */
const base = () => `http://${CLIENT_ADDRESS}:${product.port}`;

beforeAll(async () => {
  ensureBuild();
  database = await createDatabase('wgs_endings');
  await useDatabaseInThisProcess(database.url);
  fake = await startFakeOpenAi();
  product = await startProduct({ databaseUrl: database.url, env });
}, 240_000);

afterAll(async () => {
  killAllProducts();
  await fake?.close();
  await useDatabaseInThisProcess(testDatabaseUrl());
  await database?.drop().catch(() => {});
});

const endingsKey = () =>
  createTestKey({
    quota: 10,
    providers: { fake: { type: 'openai', base_url: fake.baseUrl, api_key_env: 'WGS_PROVIDER_KEY_FAKE_ENDINGS_SERVER' } },
    operations: { 'text.generate': { engine: 'fake:model-s', units: 2, output_formats: ['text', 'json'] } },
  });

/** POST /v1/text/generate over HTTP, streamed (Accept: text/event-stream) or not. */
function send(key: string, body: unknown, idempotencyKey: string, streamed: boolean): Promise<Response> {
  const headers: Record<string, string> = streamHeaders(key, idempotencyKey);
  if (!streamed) delete headers.Accept;
  return fetch(`${base()}/v1/text/generate`, {
    method: 'POST',
    headers,
    body: JSON.stringify(body),
    signal: AbortSignal.timeout(30_000),
  });
}

async function streamed(key: string, body: unknown, idempotencyKey: string): Promise<{ response: Response; events: StreamEvent[] }> {
  const response = await send(key, body, idempotencyKey, true);
  expect(response.status).toBe(200);
  expect(response.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
  return { response, events: await new EventReader(response).rest() };
}

describe('a stream that ends badly after a delta, through the running product from a non-loopback address', () => {
  const endings = [
    { name: 'the provider failing mid-stream', reply: 'One two three four five.', mode: { kind: 'break', after: 2 } as const, body: {} },
    { name: 'JSON that does not parse', reply: 'Not {json} at all', mode: { kind: 'ok' } as const, body: { output_format: 'json' } },
  ];
  for (const ending of endings) {
    it(`${ending.name}: charged once, output_interrupted, and never run again`, async () => {
      const { key, id } = await endingsKey();
      fake.reset();
      fake.setReply(ending.reply);
      fake.setMode(ending.mode);
      const idempotencyKey = newKey('ending');
      const body = { input: `stream that ends badly: ${ending.name}`, ...ending.body };
      const first = await streamed(key, body, idempotencyKey);
      const last = first.events.at(-1)!;
      expect(first.events.slice(0, -1).length).toBeGreaterThan(0);
      expect(first.events.slice(0, -1).every((e) => e.event === 'delta')).toBe(true);
      expect([last.event, last.data.error.code]).toEqual(['error', 'output_interrupted']);
      expect(last.data.error.message).toContain('The units were charged');
      expect(await books(database.url, id)).toMatchObject({ remaining: 8, captured: 1, held: 0, inFlight: 0, succeeded: 1, failed: 0 });
      expect(fake.callCount).toBe(1);

      // The same key again, streamed: the same events, replayed; as JSON: the text delivered.
      const again = await streamed(key, body, idempotencyKey);
      expect(again.response.headers.get('idempotent-replayed')).toBe('true');
      expect(again.events.map((e) => e.raw)).toEqual(first.events.map((e) => e.raw));
      // Its line says how it ended, as the first one's does (it said nothing: metrics and logs audit).
      const requestIds = [first, again].map(({ response }) => response.headers.get('x-request-id'));
      const lines = await waitFor(
        'both log lines',
        () => {
          const found = product
            .output()
            .split('\n')
            .filter((text) => text.startsWith('{') && requestIds.some((requestId) => text.includes(`"request_id":"${requestId}"`)))
            .map((text) => JSON.parse(text) as Record<string, unknown>);
          return found.length === 2 ? found : undefined;
        },
        5_000,
      );
      expect(lines.map((line) => [line.status, line.code, line.units])).toEqual([
        [200, 'output_interrupted', 2],
        [200, 'output_interrupted', 0],
      ]);
      const json = await send(key, body, idempotencyKey, false);
      expect(json.status).toBe(200);
      expect(json.headers.get('idempotent-replayed')).toBe('true');
      const result = (await json.json()) as { output: { text: string }; usage: unknown };
      expect(result.output.text).toBe(
        first.events
          .slice(0, -1)
          .map((e) => e.data.text as string)
          .join(''),
      );
      expect(result.usage).toEqual({ charged_units: 2, remaining_units: 8 });
      expect(fake.callCount, 'the engine is never called again').toBe(1);
      expect(await books(database.url, id)).toMatchObject({ remaining: 8, captured: 1, succeeded: 1 });
    });
  }
});

describe('a process killed after the first delta', () => {
  it(
    'a client gone after a delta: charged once, and its request log line, written once the call settled, says so',
    { timeout: 60_000 },
    async () => {
      const { key, id } = await endingsKey();
      fake.reset();
      fake.setReply('Delivered then abandoned.');
      fake.setMode({ kind: 'stall', after: 1 });
      // A client that closes its connection after the first delta (node:http: the socket goes at once).
      const request = httpRequest(`${base()}/v1/text/generate`, { method: 'POST', headers: streamHeaders(key, newKey('gone')) });
      request.end(JSON.stringify({ input: 'leave after the first word' }));
      const [response] = (await once(request, 'response')) as [IncomingMessage];
      let received = '';
      for await (const chunk of response) {
        received += String(chunk);
        if (received.includes('event: delta')) break;
      }
      request.destroy();
      // Noticed at the stream's next write at the latest: its keep-alive comment, every 15 s.
      await waitFor('the call charged', async () => ((await books(database.url, id)).captured === 1 ? true : undefined), 25_000);
      const line = await waitFor(
        'its log line',
        () =>
          product
            .output()
            .split('\n')
            .filter((text) => text.startsWith('{') && text.includes(`"key_prefix":"${key.slice(0, 13)}"`))
            .map((text) => JSON.parse(text) as Record<string, unknown>)[0],
        5_000,
      );
      expect(line).toMatchObject({ status: 200, units: 2, operation: 'text.generate' });
    },
  );

  it('its key is never taken over (409, then a replay of what was delivered), and the sweeper charges it once', async () => {
    const { key, id } = await endingsKey();
    fake.reset();
    fake.setReply('Delivered then killed.');
    fake.setMode({ kind: 'stall', after: 1 });
    const idempotencyKey = newKey('killed');
    const body = { input: 'die after the first word' };
    const abort = new AbortController();
    const response = await fetch(`${base()}/v1/text/generate`, {
      method: 'POST',
      headers: streamHeaders(key, idempotencyKey),
      body: JSON.stringify(body),
      signal: abort.signal,
    });
    const reader = new EventReader(response);
    expect(await reader.next()).toMatchObject({ event: 'delta', data: { text: 'Delivered ' } });
    const killedAt = Date.now();
    await product.kill();
    abort.abort();
    product = await startProduct({ databaseUrl: database.url, env });

    const retry = () => send(key, body, idempotencyKey, false);
    const during = await retry();
    if (Date.now() - killedAt < LEASE_SECONDS * 1000 - 1000) {
      expect(during.status).toBe(409);
      expect(((await during.json()) as { error: { code: string } }).error.code).toBe('idempotency_key_in_use');
    } else {
      await during.arrayBuffer();
    }
    // Past the key's lease: the answer known delivered, never a second run.
    await sleep(Math.max(0, killedAt + LEASE_SECONDS * 1000 + 500 - Date.now()));
    const replay = await retry();
    expect(replay.status).toBe(200);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(((await replay.json()) as { output: unknown }).output).toEqual({ text: 'Delivered ' });
    const events = (await streamed(key, body, idempotencyKey)).events;
    expect(events.map((e) => e.event)).toEqual(['delta', 'error']);
    expect(events[1]!.data.error.code).toBe('output_interrupted');
    expect(fake.callCount).toBe(1);

    // Past the hold's lease: the sweeper captures it, once.
    await sleep(Math.max(0, killedAt + HOLD_LEASE_SECONDS * 1000 + 500 - Date.now()));
    await sweepExpiredHolds(getSqlDb());
    await sweepExpiredHolds(getSqlDb());
    expect(await books(database.url, id)).toMatchObject({ remaining: 8, captured: 1, held: 0, inFlight: 0, succeeded: 1, failed: 0 });
    expect((await retry()).status).toBe(200);
    expect(fake.callCount).toBe(1);
  }, 120_000);
});

describe('a budget sees every call, through the running product', () => {
  it('a provider that reports no usage: its calls (streamed and JSON) estimated and counted, until the budget refuses', async () => {
    const { key, id } = await createTestKey({
      quota: 100,
      maxProviderCostPerDay: 0.04,
      providers: {
        silent: {
          type: 'openai-compatible',
          base_url: fake.baseUrl,
          api_key_env: 'WGS_PROVIDER_KEY_FAKE_ENDINGS_SERVER',
          prices: { m: { input_per_mtok: 1000, output_per_mtok: 2000 } },
        },
      },
      operations: { 'text.generate': { engine: 'silent:m', units: 1 } },
    });
    fake.reset();
    fake.setReportsUsage(false);
    fake.setReply('An answer of exactly forty-four characters..'); // 11 tokens out; 'spend' is 2 in: 0.024 a call
    const first = await streamed(key, { input: 'spend' }, newKey('budget'));
    expect(first.events.at(-1)!.event, JSON.stringify(first.events.at(-1))).toBe('done');
    const second = await send(key, { input: 'spend' }, newKey('budget'), false);
    expect(second.status).toBe(200);
    await second.arrayBuffer();
    const refused = await send(key, { input: 'spend' }, newKey('budget'), false);
    expect(refused.status).toBe(429);
    expect(((await refused.json()) as { error: { details: unknown } }).error.details).toEqual({ reason: 'budget' });
    expect(await books(database.url, id)).toMatchObject({ remaining: 98, captured: 2, succeeded: 2 });
    expect(fake.callCount).toBe(2);
  });
});
