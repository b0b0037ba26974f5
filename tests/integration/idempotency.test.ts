import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { textGenerateResponse } from '@/server/contract/generation';
import { getPool, getPrisma, getSqlDb } from '@/server/db/client';
import { CLI_ACTOR } from '@/server/domain/actor';
import { deleteExpiredIdempotencyRecords, requestFingerprint } from '@/server/domain/billing/idempotency-store';
import { topUpKey } from '@/server/domain/billing/top-up-key';
import { api, call, createTestKey, expectEnvelope, newIdempotencyKey, remainingUnits } from '../helpers/api';
import { withFakeOpenAi } from './support/providers/fake-openai-server';

// CONTRACT.md §4: scope (API key, method, path), fingerprint of the canonical body, only 2xx
// stored and replayed byte for byte, errors free the key, crashed claims are taken over.

const TEXT = '/v1/text/generate';
const CODE = '/v1/code/generate';

const fake = withFakeOpenAi({ WGS_PROVIDER_KEY_FAKE_PROVIDER_KEY: 'sk-fake-idempotency-secret' });

const fakeKey = (quota = 100) =>
  createTestKey({
    quota,
    providers: { fakeidem: { type: 'openai', base_url: fake.baseUrl, api_key_env: 'WGS_PROVIDER_KEY_FAKE_PROVIDER_KEY' } },
    operations: { 'text.generate': { engine: 'fakeidem:model-idem', units: 3 } },
  });

async function insertRecord(row: {
  apiKeyId: string;
  key: string;
  path?: string;
  body: unknown;
  status: 'running' | 'completed';
  lockedUntil: string;
  expiresAt: string;
  responseStatus?: number;
  responseBody?: string;
}): Promise<string> {
  const id = randomUUID();
  const path = row.path ?? TEXT;
  await getPool().query(
    `INSERT INTO idempotency_records (id, api_key_id, method, path, key, fingerprint, status, locked_until, expires_at, response_status, response_body)
     VALUES ($1, $2, 'POST', $3, $4, $5, $6, now() + $7::interval, now() + $8::interval, $9, $10)`,
    [
      id,
      row.apiKeyId,
      path,
      row.key,
      requestFingerprint('POST', path, row.body),
      row.status,
      row.lockedUntil,
      row.expiresAt,
      row.responseStatus ?? null,
      row.responseBody ?? null,
    ],
  );
  return id;
}

describe('the Idempotency-Key header', () => {
  it('missing -> 400 missing_idempotency_key', async () => {
    const { key, id } = await createTestKey();
    expectEnvelope(await call(api, TEXT, { input: 'x' }, { key, idempotencyKey: null }), 400, 'missing_idempotency_key');
    expect(await remainingUnits(id)).toBe(1000);
  });

  it.each([
    ['7 chars', 'abc1234'],
    ['129 chars', 'k'.repeat(129)],
    ['spaces', 'abc 123 456'],
    ['a slash', 'abc/12345'],
    ['a comma list', 'abc12345, abc12345'],
    ['empty quotes', '""'],
  ])('malformed (%s) -> 400 invalid_idempotency_key', async (_name, idempotencyKey) => {
    const { key } = await createTestKey();
    expectEnvelope(await call(api, TEXT, { input: 'x' }, { key, idempotencyKey }), 400, 'invalid_idempotency_key');
  });

  it('8 and 128 characters are accepted', async () => {
    const { key } = await createTestKey();
    expect((await call(api, TEXT, { input: 'x' }, { key, idempotencyKey: 'a-b_c.d~' })).status).toBe(200);
    expect((await call(api, TEXT, { input: 'x' }, { key, idempotencyKey: ':'.repeat(128) })).status).toBe(200);
  });

  it('the RFC 8941 quoted form names the same key as the bare form', async () => {
    const { key, id } = await createTestKey();
    const first = await call(api, TEXT, { input: 'quoted' }, { key, idempotencyKey: '"abc12345"' });
    expect(first.status).toBe(200);
    const bare = await call(api, TEXT, { input: 'quoted' }, { key, idempotencyKey: 'abc12345' });
    expect(bare.status).toBe(200);
    expect(bare.headers.get('idempotent-replayed')).toBe('true');
    expect(bare.text).toBe(first.text);
    expect(await remainingUnits(id)).toBe(999);
  });
});

describe('replay', () => {
  it('is byte-identical, marked Idempotent-Replayed: true, with its own request id, and charges once', async () => {
    const { key, id } = await createTestKey();
    const idempotencyKey = newIdempotencyKey();
    const first = await call(api, TEXT, { input: 'remember me', context: 'c' }, { key, idempotencyKey });
    expect(first.status).toBe(200);
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    const body = textGenerateResponse.parse(first.json);
    expect(body.usage).toEqual({ charged_units: 1, remaining_units: 999 });
    for (let i = 0; i < 3; i++) {
      const again = await call(api, TEXT, { input: 'remember me', context: 'c' }, { key, idempotencyKey });
      expect(again.status).toBe(200);
      expect(again.text).toBe(first.text);
      expect(again.headers.get('idempotent-replayed')).toBe('true');
      expect(again.headers.get('cache-control')).toBe('no-store');
      expect(again.headers.get('x-request-id')).toMatch(/^req_[A-Za-z0-9_-]{24,}$/);
      expect(again.headers.get('x-request-id')).not.toBe(first.headers.get('x-request-id'));
    }
    expect(await remainingUnits(id)).toBe(999);
    const events = await getPrisma().usageEvent.count({ where: { apiKeyId: id } });
    expect(events).toBe(1);
  });

  it('the fingerprint is of the canonical body: member order and whitespace do not matter', async () => {
    const { key } = await createTestKey();
    const idempotencyKey = newIdempotencyKey();
    const first = await call(api, TEXT, undefined, {
      key,
      idempotencyKey,
      method: 'POST',
      rawBody: '{"input":"a","context":"b"}',
    });
    expect(first.status).toBe(200);
    const again = await call(api, TEXT, undefined, {
      key,
      idempotencyKey,
      method: 'POST',
      rawBody: ' { "context" : "b",\n"input":"a" } ',
    });
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.text).toBe(first.text);
  });

  it('a different body with the same key -> 422 idempotency_key_reused, nothing charged', async () => {
    const { key, id } = await createTestKey();
    const idempotencyKey = newIdempotencyKey();
    expect((await call(api, TEXT, { input: 'one' }, { key, idempotencyKey })).status).toBe(200);
    expectEnvelope(await call(api, TEXT, { input: 'two' }, { key, idempotencyKey }), 422, 'idempotency_key_reused');
    expectEnvelope(await call(api, TEXT, { input: 'one', output_format: 'text' }, { key, idempotencyKey }), 422, 'idempotency_key_reused');
    expect(await remainingUnits(id)).toBe(999);
  });

  it('is scoped per API key: the same key string on two API keys is two independent requests', async () => {
    const a = await createTestKey();
    const b = await createTestKey();
    const idempotencyKey = newIdempotencyKey();
    const first = await call(api, TEXT, { input: 'shared' }, { key: a.key, idempotencyKey });
    const second = await call(api, TEXT, { input: 'shared' }, { key: b.key, idempotencyKey });
    expect(first.status).toBe(200);
    expect(second.status).toBe(200);
    expect(second.headers.get('idempotent-replayed')).toBeNull();
    expect(second.json.id).not.toBe(first.json.id);
    expect(await remainingUnits(a.id)).toBe(999);
    expect(await remainingUnits(b.id)).toBe(999);
    // and a different body on the other key is not a reuse
    expect((await call(api, TEXT, { input: 'other' }, { key: b.key, idempotencyKey: `${idempotencyKey}x` })).status).toBe(200);
  });

  it('is scoped per path: the same key string on text and code is two requests', async () => {
    const { key, id } = await createTestKey();
    const idempotencyKey = newIdempotencyKey();
    expect((await call(api, TEXT, { input: 'x' }, { key, idempotencyKey })).status).toBe(200);
    const other = await call(api, CODE, { input: 'x' }, { key, idempotencyKey });
    expect(other.status).toBe(200);
    expect(other.headers.get('idempotent-replayed')).toBeNull();
    expect(await remainingUnits(id)).toBe(1000 - 1 - 2);
  });
});

describe('a running request holds the key', () => {
  it('-> 409 idempotency_key_in_use with Retry-After for the same request; 422 reused for another', async () => {
    const { key, id } = await createTestKey();
    const idempotencyKey = newIdempotencyKey();
    await insertRecord({
      apiKeyId: id,
      key: idempotencyKey,
      body: { input: 'busy' },
      status: 'running',
      lockedUntil: '2 minutes',
      expiresAt: '24 hours',
    });
    const busy = await call(api, TEXT, { input: 'busy' }, { key, idempotencyKey });
    expectEnvelope(busy, 409, 'idempotency_key_in_use');
    expect(Number(busy.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expectEnvelope(await call(api, TEXT, { input: 'other' }, { key, idempotencyKey }), 422, 'idempotency_key_reused');
    expect(await remainingUnits(id)).toBe(1000);
  });

  it('a real slow request: the concurrent retry gets 409, the later retry the replay', async () => {
    const { key, id } = await fakeKey();
    fake.reset();
    fake.setMode({ kind: 'slow', ms: 1_500 });
    const idempotencyKey = newIdempotencyKey();
    const slow = call(api, TEXT, { input: 'slow' }, { key, idempotencyKey });
    await new Promise((resolve) => setTimeout(resolve, 500));
    const busy = await call(api, TEXT, { input: 'slow' }, { key, idempotencyKey });
    expectEnvelope(busy, 409, 'idempotency_key_in_use');
    expect(busy.headers.get('retry-after')).toBeTruthy();
    const done = await slow;
    expect(done.status, done.text).toBe(200);
    const replay = await call(api, TEXT, { input: 'slow' }, { key, idempotencyKey });
    expect(replay.text).toBe(done.text);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(fake.callCount).toBe(1);
    expect(await remainingUnits(id)).toBe(97);
    fake.reset();
  });

  it('a crashed claim (running, lease in the past) is taken over', async () => {
    const { key, id } = await createTestKey();
    const idempotencyKey = newIdempotencyKey();
    await insertRecord({
      apiKeyId: id,
      key: idempotencyKey,
      body: { input: 'crash' },
      status: 'running',
      lockedUntil: '-1 second',
      expiresAt: '24 hours',
    });
    const taken = await call(api, TEXT, { input: 'crash' }, { key, idempotencyKey });
    expect(taken.status, taken.text).toBe(200);
    expect(taken.headers.get('idempotent-replayed')).toBeNull();
    const replay = await call(api, TEXT, { input: 'crash' }, { key, idempotencyKey });
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.text).toBe(taken.text);
    expect(await remainingUnits(id)).toBe(999);
  });
});

describe('a request whose key was taken over after its lease', () => {
  it('charges nothing and gives no result: the retry that took the key over runs and charges once', async () => {
    const { key, id } = await fakeKey();
    fake.reset();
    fake.setMode({ kind: 'slow', ms: 1_500 });
    const idempotencyKey = newIdempotencyKey();
    const first = call(api, TEXT, { input: 'late' }, { key, idempotencyKey });
    await new Promise((resolve) => setTimeout(resolve, 400));
    // Its lease runs out while the provider still answers (a stalled capture, a paused process).
    const { rowCount } = await getPool().query(
      `UPDATE idempotency_records SET locked_until = now() - interval '1 second' WHERE api_key_id = $1 AND key = $2 AND status = 'running'`,
      [id, idempotencyKey],
    );
    expect(rowCount).toBe(1);
    fake.setMode({ kind: 'ok' });
    const retry = await call(api, TEXT, { input: 'late' }, { key, idempotencyKey });
    expect(retry.status, retry.text).toBe(200);
    expect(retry.headers.get('idempotent-replayed')).toBeNull();
    const late = await first;
    expectEnvelope(late, 503, 'provider_unavailable');
    expect(await remainingUnits(id)).toBe(97);
    const { rows } = await getPool().query(
      `SELECT outcome, units, count(*)::int AS n FROM usage_events WHERE api_key_id = $1 GROUP BY outcome, units ORDER BY outcome::text`,
      [id],
    );
    // The late request's provider call is recorded, charged nothing.
    expect(rows).toEqual([
      { outcome: 'failed', units: 0, n: 1 },
      { outcome: 'succeeded', units: 3, n: 1 },
    ]);
    const holds = await getPool().query(
      `SELECT status, count(*)::int AS n FROM unit_holds WHERE api_key_id = $1 GROUP BY status ORDER BY status`,
      [id],
    );
    expect(holds.rows).toEqual([
      { status: 'captured', n: 1 },
      { status: 'released', n: 1 },
    ]);
    const replay = await call(api, TEXT, { input: 'late' }, { key, idempotencyKey });
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.text).toBe(retry.text);
    fake.reset();
  });

  it('whose hold has the last units: the retry gets them at once, and charges once', async () => {
    const { key, id } = await fakeKey(3);
    fake.reset();
    fake.setMode({ kind: 'slow', ms: 1_500 });
    const idempotencyKey = newIdempotencyKey();
    const first = call(api, TEXT, { input: 'late' }, { key, idempotencyKey });
    await new Promise((resolve) => setTimeout(resolve, 400));
    await getPool().query(
      `UPDATE idempotency_records SET locked_until = now() - interval '1 second' WHERE api_key_id = $1 AND key = $2 AND status = 'running'`,
      [id, idempotencyKey],
    );
    fake.setMode({ kind: 'ok' });
    const retry = await call(api, TEXT, { input: 'late' }, { key, idempotencyKey });
    expect(retry.status, retry.text).toBe(200);
    expectEnvelope(await first, 503, 'provider_unavailable');
    expect(await holdsAndEvents(id)).toEqual(chargedOnceAfterALostCall('fakeidem:model-idem', 3));
    fake.reset();
  });
});

/** A hold of `units` taken under the record `recordId` by a request that has not settled it (it died, or still runs). */
async function insertOpenHold(apiKeyId: string, recordId: string | null, units: number): Promise<void> {
  await getPool().query(
    `WITH hold AS (
       INSERT INTO unit_holds (id, api_key_id, units, operation, request_id, lease_until, engines, record_id)
       VALUES (gen_random_uuid(), $1, $2, 'text.generate', 'req_dead', now() + interval '300 seconds', ARRAY['local'], $3)
     )
     UPDATE api_keys SET remaining_units = remaining_units - $2, in_flight = in_flight + 1 WHERE id = $1`,
    [apiKeyId, units, recordId],
  );
}

/** The books of a key whose one call was lost (its hold returned), then run and charged `units` once, both on `engine`. */
const chargedOnceAfterALostCall = (engine: string, units: number) => ({
  holds: [
    { status: 'captured', n: 1 },
    { status: 'released', n: 1 },
  ],
  events: [
    { outcome: 'failed', units: 0, error_code: 'request_lost', engines_tried: [engine] },
    { outcome: 'succeeded', units, error_code: null, engines_tried: [engine] },
  ],
  key: { remaining_units: 0, in_flight: 0 },
});

async function holdsAndEvents(apiKeyId: string) {
  const holds = await getPool().query(
    `SELECT status::text, count(*)::int AS n FROM unit_holds WHERE api_key_id = $1 GROUP BY 1 ORDER BY 1`,
    [apiKeyId],
  );
  const events = await getPool().query(
    `SELECT outcome::text, units, error_code, engines_tried FROM usage_events WHERE api_key_id = $1 ORDER BY outcome::text`,
    [apiKeyId],
  );
  const key = await getPool().query(`SELECT remaining_units, in_flight FROM api_keys WHERE id = $1`, [apiKeyId]);
  return { holds: holds.rows, events: events.rows, key: key.rows[0] };
}

describe('a retry that takes over the key of a request that died', () => {
  const deadRequest = async (apiKeyId: string, idempotencyKey: string, units: number) => {
    const recordId = await insertRecord({
      apiKeyId,
      key: idempotencyKey,
      body: { input: 'died' },
      status: 'running',
      lockedUntil: '-1 second',
      expiresAt: '24 hours',
    });
    await insertOpenHold(apiKeyId, recordId, units);
  };

  it('gets the units the dead request held at once (402 is final, CONTRACT.md §2), and the dead call is on the books', async () => {
    const { key, id } = await createTestKey({ quota: 1 });
    const idempotencyKey = newIdempotencyKey();
    await deadRequest(id, idempotencyKey, 1);
    const taken = await call(api, TEXT, { input: 'died' }, { key, idempotencyKey });
    expect(taken.status, taken.text).toBe(200);
    expect(textGenerateResponse.parse(taken.json).usage).toEqual({ charged_units: 1, remaining_units: 0 });
    expect(await holdsAndEvents(id)).toEqual(chargedOnceAfterALostCall('local', 1));
  });

  it('two retries at once, each of a dead request: both run, whichever returns the holds (8 rounds)', async () => {
    for (let round = 0; round < 8; round++) {
      const { key, id } = await createTestKey({ quota: 2, concurrency: 2 });
      const idempotencyKeys = [newIdempotencyKey(), newIdempotencyKey()];
      for (const idempotencyKey of idempotencyKeys) await deadRequest(id, idempotencyKey, 1);
      const retries = await Promise.all(
        idempotencyKeys.map((idempotencyKey) => call(api, TEXT, { input: 'died' }, { key, idempotencyKey })),
      );
      expect(retries.map((retry) => [retry.status, retry.text])).toEqual(retries.map((retry) => [200, retry.text]));
      expect((await holdsAndEvents(id)).key).toEqual({ remaining_units: 0, in_flight: 0 });
    }
  });

  it('gets the concurrency slot the dead request held at once', async () => {
    const { key, id } = await createTestKey({ quota: 10, concurrency: 1 });
    const idempotencyKey = newIdempotencyKey();
    await deadRequest(id, idempotencyKey, 1);
    const taken = await call(api, TEXT, { input: 'died' }, { key, idempotencyKey });
    expect(taken.status, taken.text).toBe(200);
    expect((await holdsAndEvents(id)).key).toEqual({ remaining_units: 9, in_flight: 0 });
  });

  it('leaves the holds of requests whose keys are still their own, and the refusal stands', async () => {
    const { key, id } = await createTestKey({ quota: 2 });
    const live = await insertRecord({
      apiKeyId: id,
      key: newIdempotencyKey(),
      body: { input: 'running' },
      status: 'running',
      lockedUntil: '60 seconds',
      expiresAt: '24 hours',
    });
    await insertOpenHold(id, live, 1);
    await insertOpenHold(id, null, 1); // a hold written before holds named their record
    expectEnvelope(await call(api, TEXT, { input: 'another' }, { key, idempotencyKey: newIdempotencyKey() }), 402, 'quota_exhausted');
    expect(await holdsAndEvents(id)).toEqual({ holds: [{ status: 'held', n: 2 }], events: [], key: { remaining_units: 0, in_flight: 2 } });
  });
});

describe('errors leave the key free', () => {
  it('503 then a retry with the same key succeeds and charges once', async () => {
    const { key, id } = await fakeKey();
    fake.reset();
    fake.setMode({ kind: 'status', status: 503 });
    const idempotencyKey = newIdempotencyKey();
    const failed = await call(api, TEXT, { input: 'retry me' }, { key, idempotencyKey });
    expectEnvelope(failed, 503, 'provider_unavailable');
    expect(failed.headers.get('ratelimit-policy')).toMatch(/^"minute";q=\d+;w=60$/); // its point is kept
    expect(await remainingUnits(id)).toBe(100);
    fake.setMode({ kind: 'ok' });
    const retried = await call(api, TEXT, { input: 'retry me' }, { key, idempotencyKey });
    expect(retried.status, retried.text).toBe(200);
    expect(retried.headers.get('idempotent-replayed')).toBeNull();
    expect(textGenerateResponse.parse(retried.json).usage).toEqual({ charged_units: 3, remaining_units: 97 });
    const replay = await call(api, TEXT, { input: 'retry me' }, { key, idempotencyKey });
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(await remainingUnits(id)).toBe(97);
    fake.reset();
  });

  it('402 then, after a top-up, a retry with the same key succeeds', async () => {
    const { key, id } = await createTestKey({ quota: 0 });
    const idempotencyKey = newIdempotencyKey();
    expectEnvelope(await call(api, TEXT, { input: 'pay' }, { key, idempotencyKey }), 402, 'quota_exhausted');
    expectEnvelope(await call(api, TEXT, { input: 'pay' }, { key, idempotencyKey }), 402, 'quota_exhausted');
    await topUpKey(getPrisma(), CLI_ACTOR, id, 5);
    const paid = await call(api, TEXT, { input: 'pay' }, { key, idempotencyKey });
    expect(paid.status, paid.text).toBe(200);
    expect(await remainingUnits(id)).toBe(4);
  });

  it('a different body is not a reuse after an error (the error stored nothing)', async () => {
    const { key } = await createTestKey({ quota: 0 });
    const idempotencyKey = newIdempotencyKey();
    expectEnvelope(await call(api, TEXT, { input: 'a' }, { key, idempotencyKey }), 402, 'quota_exhausted');
    expectEnvelope(await call(api, TEXT, { input: 'b' }, { key, idempotencyKey }), 402, 'quota_exhausted');
    const { rows } = await getPool().query('SELECT count(*)::int AS n FROM idempotency_records WHERE key = $1', [idempotencyKey]);
    expect(rows[0].n).toBe(0);
  });
});

describe('expiry', () => {
  it('an expired record is reusable, with the same or a different body', async () => {
    const { key, id } = await createTestKey();
    const idempotencyKey = newIdempotencyKey();
    await insertRecord({
      apiKeyId: id,
      key: idempotencyKey,
      body: { input: 'old' },
      status: 'completed',
      lockedUntil: '-25 hours',
      expiresAt: '-1 second',
      responseStatus: 200,
      responseBody: '{"stale":true}',
    });
    const fresh = await call(api, TEXT, { input: 'new' }, { key, idempotencyKey });
    expect(fresh.status, fresh.text).toBe(200);
    expect(fresh.headers.get('idempotent-replayed')).toBeNull();
    textGenerateResponse.parse(fresh.json);

    const otherKey = newIdempotencyKey();
    await insertRecord({
      apiKeyId: id,
      key: otherKey,
      body: { input: 'same' },
      status: 'completed',
      lockedUntil: '-25 hours',
      expiresAt: '-1 second',
      responseStatus: 200,
      responseBody: '{"stale":true}',
    });
    const same = await call(api, TEXT, { input: 'same' }, { key, idempotencyKey: otherKey });
    expect(same.status).toBe(200);
    expect(same.text).not.toContain('stale');
    expect(await remainingUnits(id)).toBe(998);
  });

  it('deleteExpiredIdempotencyRecords removes expired records and keeps live ones', async () => {
    const { id } = await createTestKey();
    const expired = await insertRecord({
      apiKeyId: id,
      key: newIdempotencyKey(),
      body: { input: 'e' },
      status: 'completed',
      lockedUntil: '-2 days',
      expiresAt: '-1 hour',
      responseStatus: 200,
      responseBody: '{}',
    });
    const expiredRunning = await insertRecord({
      apiKeyId: id,
      key: newIdempotencyKey(),
      body: { input: 'r' },
      status: 'running',
      lockedUntil: '-2 days',
      expiresAt: '-1 minute',
    });
    const live = await insertRecord({
      apiKeyId: id,
      key: newIdempotencyKey(),
      body: { input: 'l' },
      status: 'completed',
      lockedUntil: '-1 hour',
      expiresAt: '1 hour',
      responseStatus: 200,
      responseBody: '{}',
    });
    const deleted = await deleteExpiredIdempotencyRecords(getSqlDb());
    expect(deleted).toBeGreaterThanOrEqual(2);
    const { rows } = await getPool().query<{ id: string }>('SELECT id FROM idempotency_records WHERE id = ANY($1::uuid[])', [
      [expired, expiredRunning, live],
    ]);
    expect(rows.map((r) => r.id)).toEqual([live]);
  });
});
