import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testDatabaseUrl } from '../setup/test-database';
import { createTestKey } from '../helpers/api';
import { parsePrometheusText } from '../helpers/prometheus-text';
import { startFakeOpenAi, type FakeOpenAi } from '../../fakes/fake-openai';
import {
  books,
  createDatabase,
  ensureBuild,
  killAllProducts,
  newKey,
  post,
  startProduct,
  tally,
  useDatabaseInThisProcess,
  type Product,
  type Reply,
  type TestDatabase,
} from './support/product/product';

// Two real app processes (`npm start`'s scripts/start.mjs) on one database: quota, idempotency, rate and
// concurrency limits are kept in PostgreSQL, so they hold across instances with exact counts.

const TEXT = '/v1/text/generate';
let database: TestDatabase;
let a: Product;
let b: Product;
let fake: FakeOpenAi;

beforeAll(async () => {
  ensureBuild();
  database = await createDatabase('wgs_multi');
  await useDatabaseInThisProcess(database.url);
  fake = await startFakeOpenAi();
  // One after the other, as an operator would start them (instances that do start together
  // seed packages.example.json once: server/domain/packages/seed-example-packages.ts).
  const env = { WGS_PROVIDER_KEY_FAKE_PROVIDER_KEY: 'sk-fake', PROVIDER_MAX_RETRIES: '0', METRICS_TOKEN };
  a = await startProduct({ databaseUrl: database.url, env });
  b = await startProduct({ databaseUrl: database.url, env });
}, 240_000);

afterAll(async () => {
  killAllProducts();
  await fake?.close();
  await useDatabaseInThisProcess(testDatabaseUrl());
  await database?.drop().catch(() => {});
});

const METRICS_TOKEN = 'multi-instance-metrics-token';

/** How many of an instance's paid-path statements wrote more than one call (billing/batched-writes.ts). */
async function batchesOfSeveral(product: Product): Promise<number> {
  const response = await fetch(`${product.base}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } });
  const { samples } = parsePrometheusText(await response.text());
  const sum = (name: string, le?: string) =>
    samples
      .filter((sample) => sample.name === name && (le === undefined || sample.labels.le === le))
      .reduce((total, sample) => total + sample.value, 0);
  return sum('wgs_db_batch_size_count') - sum('wgs_db_batch_size_bucket', '1');
}

/** Request i goes to instance A when even, B when odd. */
const instance = (i: number) => (i % 2 === 0 ? a : b);

describe('two instances on one database', () => {
  it('serves from both processes', () => {
    expect(a.pid).not.toBe(b.pid);
    expect(a.port).not.toBe(b.port);
  });

  it('quota race: exactly the quota is sold across both instances, never more', async () => {
    const quota = 40;
    // Each instance answers one paid call first, so neither meets the race with its paid path
    // not yet compiled (under a loaded machine that alone could let the other sell every unit).
    const warm = await createTestKey({ quota: 2 });
    for (const product of [a, b]) expect((await post(product.base, TEXT, warm.key, { input: 'warm' }, newKey('warm'))).status).toBe(200);
    const key = await createTestKey({ quota, rpm: 100_000, concurrency: 1_000 });
    const replies = await Promise.all(
      Array.from({ length: 100 }, (_, i) => post(instance(i).base, TEXT, key.key, { input: `race ${i}` }, newKey('quota'))),
    );
    const counts = tally(replies);
    expect(counts).toEqual({ 200: quota, 402: 100 - quota });
    for (const reply of replies.filter((r) => r.status === 402)) expect(reply.json.error.code).toBe('quota_exhausted');
    // Each instance was sent 50 calls, more than the quota: had either kept its own count, the two
    // together would have sold more than 40. How the 40 split between them is timing (on a loaded
    // machine one instance can sell them all while the other refuses from the shared books).
    for (const parity of [0, 1]) expect(replies.filter((r, i) => i % 2 === parity && r.status === 402).length).toBeGreaterThanOrEqual(10);
    const remaining = replies
      .filter((r) => r.status === 200)
      .map((r) => r.json.usage.remaining_units as number)
      .sort((x, y) => x - y);
    expect(remaining).toEqual(Array.from({ length: quota }, (_, i) => i)); // every balance 0..39 handed out once
    // The calls met in batches (one statement, one commit for several), on each instance.
    for (const product of [a, b]) expect(await batchesOfSeveral(product)).toBeGreaterThan(0);
    expect(await books(database.url, key.id)).toMatchObject({
      remaining: 0,
      inFlight: 0,
      captured: quota,
      capturedUnits: quota,
      held: 0,
      succeeded: quota,
    });
  });

  it("provider cost budget: the day's cost reached through one instance refuses the next request on the other", async () => {
    // Each call costs 12 tokens × 100,000 per Mtok = 1.2; the budget 2.4 is reached by exactly two calls.
    const provider = `budget${Date.now() % 100_000}`;
    const key = await createTestKey({
      providers: {
        [provider]: {
          type: 'openai',
          base_url: fake.baseUrl,
          api_key_env: 'WGS_PROVIDER_KEY_FAKE_PROVIDER_KEY',
          prices: { 'model-b': { input_per_mtok: 100_000, output_per_mtok: 100_000 } },
        },
      },
      operations: { 'text.generate': { engine: `${provider}:model-b`, units: 1 } },
      maxProviderCostPerDay: 2.4,
    });
    const send = (product: Product, i: number) => post(product.base, TEXT, key.key, { input: `budget ${i}` }, newKey('budget'));
    expect((await send(a, 1)).status).toBe(200);
    expect((await send(b, 2)).status).toBe(200);
    for (const [product, i] of [
      [a, 3],
      [b, 4],
    ] as const) {
      const refused = await send(product, i);
      expect(refused.status).toBe(429);
      expect(refused.json.error).toMatchObject({ code: 'rate_limited', details: { reason: 'budget' } });
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    }
    expect(await books(database.url, key.id)).toMatchObject({ succeeded: 2, inFlight: 0 });
  });

  it('idempotency race: one key sent 24 times at once to both instances is charged once', async () => {
    const key = await createTestKey({ quota: 100, rpm: 100_000, concurrency: 1_000 });
    const idem = newKey('idem');
    const body = { input: 'the same logical request' };
    const replies = await Promise.all(Array.from({ length: 24 }, (_, i) => post(instance(i).base, TEXT, key.key, body, idem)));
    for (const reply of replies) expect([200, 409]).toContain(reply.status);
    for (const reply of replies.filter((r) => r.status === 409)) {
      expect(reply.json.error.code).toBe('idempotency_key_in_use');
      expect(Number(reply.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    }
    const ok = replies.filter((r) => r.status === 200);
    expect(ok.length).toBeGreaterThanOrEqual(1);
    const original = ok.find((r) => r.headers.get('idempotent-replayed') !== 'true');
    expect(ok.filter((r) => r.headers.get('idempotent-replayed') !== 'true')).toHaveLength(1);
    for (const reply of ok) expect(reply.text).toBe(original!.text);

    // Afterwards both instances replay the one stored response.
    const replays = await Promise.all([post(a.base, TEXT, key.key, body, idem), post(b.base, TEXT, key.key, body, idem)]);
    for (const replay of replays) {
      expect(replay.status).toBe(200);
      expect(replay.headers.get('idempotent-replayed')).toBe('true');
      expect(replay.text).toBe(original!.text);
    }
    // The same key with another body is refused on either instance.
    const reused = await post(b.base, TEXT, key.key, { input: 'something else' }, idem);
    expect(reused.status).toBe(422);
    expect(reused.json.error.code).toBe('idempotency_key_reused');

    expect(await books(database.url, key.id)).toMatchObject({ remaining: 99, captured: 1, held: 0, succeeded: 1, inFlight: 0 });
  });

  it('rate limit: requests per minute are counted once for both instances', async () => {
    const rpm = 30;
    const key = await createTestKey({ quota: 1_000, rpm, concurrency: 1_000 });
    const replies = await Promise.all(
      Array.from({ length: 70 }, (_, i) => post(instance(i).base, TEXT, key.key, { input: `rpm ${i}` }, newKey('rpm'))),
    );
    expect(tally(replies)).toEqual({ 200: rpm, 429: 70 - rpm });
    for (const reply of replies.filter((r) => r.status === 429)) {
      expect(reply.json.error.code).toBe('rate_limited');
      expect(Number(reply.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    }
    expect(await books(database.url, key.id)).toMatchObject({ remaining: 1_000 - rpm, captured: rpm, succeeded: rpm, held: 0 });
  });

  it('concurrency limit: in-flight requests never exceed the package limit across instances', async () => {
    const concurrency = 3;
    fake.reset();
    fake.setMode({ kind: 'slow', ms: 1_500 });
    const key = await createTestKey({
      quota: 1_000,
      rpm: 100_000,
      concurrency,
      providers: { fake: { type: 'openai', base_url: fake.baseUrl, api_key_env: 'WGS_PROVIDER_KEY_FAKE_PROVIDER_KEY' } },
      operations: { 'text.generate': { engine: 'fake:model-c', units: 2, output_formats: ['text'] } },
    });
    const replies: Reply[] = await Promise.all(
      Array.from({ length: 12 }, (_, i) => post(instance(i).base, TEXT, key.key, { input: `slow ${i}` }, newKey('conc'))),
    );
    const counts = tally(replies);
    expect((counts[200] ?? 0) + (counts[429] ?? 0)).toBe(12);
    expect(counts[200]).toBeGreaterThanOrEqual(1);
    expect(fake.maxActive).toBeLessThanOrEqual(concurrency);
    for (const reply of replies.filter((r) => r.status === 429)) expect(reply.json.error.code).toBe('rate_limited');
    const ok = counts[200]!;
    expect(await books(database.url, key.id)).toMatchObject({
      remaining: 1_000 - 2 * ok,
      captured: ok,
      capturedUnits: 2 * ok,
      succeeded: ok,
      held: 0,
      inFlight: 0,
    });
    fake.reset();
  });
});
