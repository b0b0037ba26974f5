import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { codeGenerateResponse, textGenerateResponse } from '@/server/contract/generation';
import { getPool, getSqlDb } from '@/server/db/client';
import { sweepExpiredHolds } from '@/server/domain/billing/sweep-expired-holds';
import { api, call, createTestKey, expectEnvelope, newIdempotencyKey, remainingUnits, type CallResult } from '../helpers/api';
import { withFakeOpenAi } from './support/providers/fake-openai-server';

// Quota (CONTRACT.md §6, interface-v1.md §8): units are held before any engine runs, charged on
// success, returned on failure, never below zero however many requests race.

const TEXT = '/v1/text/generate';
const CODE = '/v1/code/generate';

const fake = withFakeOpenAi({ WGS_PROVIDER_KEY_FAKE_PROVIDER_KEY: 'sk-fake-quota-secret' });

const providers = () => ({ fakequota: { type: 'openai', base_url: fake.baseUrl, api_key_env: 'WGS_PROVIDER_KEY_FAKE_PROVIDER_KEY' } });

async function keyState(id: string) {
  const { rows } = await getPool().query<{ remaining_units: number; in_flight: number }>(
    'SELECT remaining_units, in_flight FROM api_keys WHERE id = $1',
    [id],
  );
  return rows[0]!;
}

async function usageEvents(id: string) {
  const { rows } = await getPool().query<{ outcome: string; units: number; error_code: string | null }>(
    'SELECT outcome::text, units, error_code FROM usage_events WHERE api_key_id = $1 ORDER BY created_at',
    [id],
  );
  return rows;
}

const routes = [
  { name: 'text.generate', handler: api, path: TEXT, body: { input: 'hello' }, schema: textGenerateResponse },
  { name: 'code.generate', handler: api, path: CODE, body: { input: 'let x = 1' }, schema: codeGenerateResponse },
] as const;

describe.each(routes)('$name quota', ({ name, handler, path, body, schema }) => {
  const keyWith = (quota: number) => createTestKey({ quota, operations: { [name]: { engine: 'local', units: 3 } } });
  /** A key whose calls (3 units each) go to the fake provider. */
  const providerKeyWith = (quota: number) =>
    createTestKey({ quota, providers: providers(), operations: { [name]: { engine: 'fakequota:model-q', units: 3 } } });

  it('enough units: 200, charged and remaining units in the result', async () => {
    const { key, id } = await keyWith(10);
    const result = await call(handler, path, body, { key });
    expect(result.status, result.text).toBe(200);
    expect(schema.parse(result.json).usage).toEqual({ charged_units: 3, remaining_units: 7 });
    expect(await keyState(id)).toEqual({ remaining_units: 7, in_flight: 0 });
  });

  it('exactly enough units: 200 and remaining 0', async () => {
    const { key, id } = await keyWith(3);
    const result = await call(handler, path, body, { key });
    expect(schema.parse(result.json).usage).toEqual({ charged_units: 3, remaining_units: 0 });
    expect(await remainingUnits(id)).toBe(0);
  });

  it('fewer units than the call costs: 402 quota_exhausted, nothing taken', async () => {
    const { key, id } = await keyWith(2);
    const refused = await call(handler, path, body, { key });
    expectEnvelope(refused, 402, 'quota_exhausted');
    expect(refused.json.error.message).toBe('This call needs 3 units and only 2 remain in the purchased quota.');
    expect(refused.json.error.details).toEqual({ required_units: 3, remaining_units: 2 });
    expect(await keyState(id)).toEqual({ remaining_units: 2, in_flight: 0 });
    expect(await usageEvents(id)).toEqual([]);
  });

  it('no units: 402 quota_exhausted', async () => {
    const { key, id } = await keyWith(0);
    const refused = await call(handler, path, body, { key });
    expectEnvelope(refused, 402, 'quota_exhausted');
    expect(refused.json.error.message).toBe('The purchased quota is exhausted.');
    expect(refused.json.error.details).toEqual({ required_units: 3, remaining_units: 0 });
    expect(await remainingUnits(id)).toBe(0);
    // Step 9 ran before the quota refused it: the minute's count is told, as on a 200 or a 429.
    expect(refused.headers.get('ratelimit-remaining')).toMatch(/^\d+$/);
    expect(refused.headers.get('ratelimit')).toMatch(/^"minute";r=\d+;t=\d+$/);
    expect(refused.headers.get('retry-after')).toBeNull();
  });

  it('plus one: 422 never charges', async () => {
    const { key, id } = await keyWith(3);
    expectEnvelope(await call(handler, path, { ...body, unknown: 1 }, { key }), 422, 'validation_error');
    expect(await remainingUnits(id)).toBe(3);
  });

  it('plus two: 503 never charges; the units are released and a failed usage event with 0 units recorded', async () => {
    const { key, id } = await providerKeyWith(3);
    fake.reset();
    fake.setMode({ kind: 'status', status: 500 });
    expectEnvelope(await call(handler, path, body, { key }), 503, 'provider_unavailable');
    expect(await keyState(id)).toEqual({ remaining_units: 3, in_flight: 0 });
    expect(await usageEvents(id)).toEqual([{ outcome: 'failed', units: 0, error_code: 'provider_unavailable' }]);
    const { rows } = await getPool().query('SELECT status::text FROM unit_holds WHERE api_key_id = $1', [id]);
    expect(rows).toEqual([{ status: 'released' }]);
    fake.setMode({ kind: 'ok' });
    const ok = await call(handler, path, body, { key });
    expect(schema.parse(ok.json).usage).toEqual({ charged_units: 3, remaining_units: 0 });
    fake.reset();
  });

  it('no units left but those a call in flight holds: 402 saying they come back if it fails (outside audit)', async () => {
    const { key, id } = await providerKeyWith(3);
    fake.reset();
    fake.setMode({ kind: 'slow', ms: 800 });
    const first = call(handler, path, body, { key });
    await expect.poll(() => fake.callCount).toBe(1);
    const refused = await call(handler, path, body, { key });
    expectEnvelope(refused, 402, 'quota_exhausted');
    expect(refused.json.error.message).toBe(
      'The purchased quota is exhausted. A call of this key in flight holds units, returned if it fails.',
    );
    expect(refused.json.error.details).toEqual({ required_units: 3, remaining_units: 0 });
    expect((await first).status).toBe(200);
    expect(await keyState(id)).toEqual({ remaining_units: 0, in_flight: 0 });
    fake.reset();
  });

  it('units: 0 operations succeed and report 0 charged', async () => {
    const { key } = await createTestKey({ quota: 0, operations: { [name]: { engine: 'local', units: 0 } } });
    const result = await call(handler, path, body, { key });
    expect(result.status, result.text).toBe(200);
    expect(schema.parse(result.json).usage).toEqual({ charged_units: 0, remaining_units: 0 });
  });
});

describe('sweepExpiredHolds', () => {
  it('returns the units of a hold whose lease passed and frees its concurrency slot', async () => {
    const { key, id } = await createTestKey({ quota: 10, concurrency: 1 });
    // What holdUnits does, for a request that then died: take the units and a slot, write the hold.
    const holdId = randomUUID();
    await getPool().query(
      `WITH taken AS (UPDATE api_keys SET remaining_units = remaining_units - 4, in_flight = in_flight + 1 WHERE id = $1 RETURNING id)
       INSERT INTO unit_holds (id, api_key_id, units, operation, request_id, lease_until)
       SELECT $2::uuid, $1::uuid, 4, 'text.generate', 'req_crashedcrashedcrashed00', now() - interval '1 second' FROM taken`,
      [id, holdId],
    );
    expect(await keyState(id)).toEqual({ remaining_units: 6, in_flight: 1 });
    expectEnvelope(await call(api, TEXT, { input: 'x' }, { key }), 429, 'rate_limited'); // the dead request's slot
    expect(await sweepExpiredHolds(getSqlDb())).toBeGreaterThanOrEqual(1);
    expect(await keyState(id)).toEqual({ remaining_units: 10, in_flight: 0 });
    const { rows } = await getPool().query('SELECT status::text FROM unit_holds WHERE id = $1', [holdId]);
    expect(rows).toEqual([{ status: 'released' }]);
    expect(await sweepExpiredHolds(getSqlDb())).toBeGreaterThanOrEqual(0); // a second sweep returns nothing twice
    expect(await keyState(id)).toEqual({ remaining_units: 10, in_flight: 0 });
    const after = await call(api, TEXT, { input: 'x' }, { key });
    expect(textGenerateResponse.parse(after.json).usage).toEqual({ charged_units: 1, remaining_units: 9 });
  });

  it('leaves a hold whose lease has not passed', async () => {
    const { id } = await createTestKey({ quota: 10 });
    const holdId = randomUUID();
    await getPool().query(
      `WITH taken AS (UPDATE api_keys SET remaining_units = remaining_units - 2, in_flight = in_flight + 1 WHERE id = $1 RETURNING id)
       INSERT INTO unit_holds (id, api_key_id, units, operation, request_id, lease_until)
       SELECT $2::uuid, $1::uuid, 2, 'text.generate', 'req_livelivelivelivelivelive0', now() + interval '5 minutes' FROM taken`,
      [id, holdId],
    );
    await sweepExpiredHolds(getSqlDb());
    expect(await keyState(id)).toEqual({ remaining_units: 8, in_flight: 1 });
  });
});

describe('races', () => {
  it('50 concurrent requests with one Idempotency-Key: exactly one provider call and one charge', async () => {
    const { key, id } = await createTestKey({
      quota: 100,
      providers: providers(),
      operations: { 'text.generate': { engine: 'fakequota:model-race', units: 5 } },
    });
    fake.reset();
    fake.setMode({ kind: 'slow', ms: 400 });
    const idempotencyKey = newIdempotencyKey();
    const results = await Promise.all(Array.from({ length: 50 }, () => call(api, TEXT, { input: 'once only' }, { key, idempotencyKey })));
    expect(fake.callCount).toBe(1);
    const statuses = results.map((r) => r.status);
    expect(
      statuses.every((s) => s === 200 || s === 409),
      JSON.stringify(statuses),
    ).toBe(true);
    const fresh = results.filter((r) => r.status === 200 && r.headers.get('idempotent-replayed') === null);
    expect(fresh).toHaveLength(1);
    for (const r of results.filter((r) => r.status === 409)) expectEnvelope(r, 409, 'idempotency_key_in_use');
    for (const r of results.filter((r) => r.status === 200)) expect(r.text).toBe(fresh[0]!.text);
    expect(await keyState(id)).toEqual({ remaining_units: 95, in_flight: 0 });
    expect((await usageEvents(id)).filter((e) => e.outcome === 'succeeded')).toHaveLength(1);
    // After the race every retry replays it.
    const replay = await call(api, TEXT, { input: 'once only' }, { key, idempotencyKey });
    expect(replay.text).toBe(fresh[0]!.text);
    expect(fake.callCount).toBe(1);
    fake.reset();
  });

  it.each([
    { n: 10, units: 1, op: 'text.generate' as const },
    { n: 8, units: 3, op: 'code.generate' as const },
  ])('units for $n calls of $op hit by 3N concurrent requests: N successes, the rest 402, remaining 0', async ({ n, units, op }) => {
    const { key, id } = await createTestKey({ quota: n * units, operations: { [op]: { engine: 'local', units } } });
    const [handler, path] = op === 'text.generate' ? [api, TEXT] : [api, CODE];
    const results: CallResult[] = await Promise.all(
      Array.from({ length: 3 * n }, (_, i) => call(handler, path, { input: `race ${i}` }, { key })),
    );
    const ok = results.filter((r) => r.status === 200);
    const refused = results.filter((r) => r.status === 402);
    expect(ok.length, JSON.stringify(results.map((r) => r.status))).toBe(n);
    expect(refused).toHaveLength(2 * n);
    for (const r of refused) expectEnvelope(r, 402, 'quota_exhausted');
    const remaining = ok.map((r) => r.json.usage.remaining_units as number).sort((a, b) => a - b);
    expect(remaining).toEqual(Array.from({ length: n }, (_, i) => i * units)); // each balance reported once, none negative
    expect(await keyState(id)).toEqual({ remaining_units: 0, in_flight: 0 });
    expect(await usageEvents(id)).toHaveLength(n);
  });

  it('a balance that does not divide evenly never goes negative', async () => {
    const { key, id } = await createTestKey({ quota: 7, operations: { 'code.generate': { engine: 'local', units: 2 } } });
    const results = await Promise.all(Array.from({ length: 12 }, (_, i) => call(api, CODE, { input: `r${i}` }, { key })));
    expect(results.filter((r) => r.status === 200)).toHaveLength(3);
    expect(results.filter((r) => r.status === 402)).toHaveLength(9);
    expect(await keyState(id)).toEqual({ remaining_units: 1, in_flight: 0 });
  });
});
