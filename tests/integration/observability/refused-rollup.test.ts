import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { disconnectDb, getPool } from '@/server/db/client';
import { countRefusal, flushRefusals, pendingRefusals } from '@/server/observability/refusal-counter';
import { api, call, createTestKey, expectEnvelope } from '../../helpers/api';

// Refused /v1 answers are counted in memory and reach refused_requests only when flushed, in
// one upsert per flush, with exact counts per minute, key, operation, status and code.

const TEXT = '/v1/text/generate';

interface Row {
  api_key_id: string | null;
  operation: string;
  status: number;
  code: string;
  count: number;
}

async function rowsOf(keyId: string): Promise<Row[]> {
  const { rows } = await getPool().query<Row>(
    `SELECT api_key_id, operation, status, code, sum(count)::int AS count FROM refused_requests
      WHERE api_key_id = $1 GROUP BY 1, 2, 3, 4 ORDER BY status, code`,
    [keyId],
  );
  return rows;
}

async function keylessCount(code: string): Promise<number> {
  const { rows } = await getPool().query<{ n: number }>(
    'SELECT COALESCE(sum(count), 0)::int AS n FROM refused_requests WHERE api_key_id IS NULL AND code = $1',
    [code],
  );
  return rows[0]!.n;
}

beforeAll(async () => {
  await flushRefusals(getPool());
});
afterAll(async () => {
  await disconnectDb();
});

describe('refused requests', () => {
  it('a burst of 429s, 422s and 402s shows exact counts in the rollup after a flush, and none before it', async () => {
    const throttled = await createTestKey({ rpm: 2 });
    const broke = await createTestKey({ quota: 1 });
    const keylessBefore = await keylessCount('invalid_api_key');

    for (let i = 0; i < 2; i++) expect((await call(api, TEXT, { input: 'hi' }, { key: throttled.key })).status).toBe(200);
    for (let i = 0; i < 10; i++) expectEnvelope(await call(api, TEXT, { input: 'hi' }, { key: throttled.key }), 429, 'rate_limited');

    expect((await call(api, TEXT, { input: 'hi' }, { key: broke.key })).status).toBe(200);
    for (let i = 0; i < 4; i++) expectEnvelope(await call(api, TEXT, { input: '' }, { key: broke.key }), 422, 'validation_error');
    for (let i = 0; i < 3; i++) expectEnvelope(await call(api, TEXT, { input: 'hi' }, { key: broke.key }), 402, 'quota_exhausted');
    expectEnvelope(await call(api, TEXT, { input: 'hi' }, { key: 'wgs_live_not-a-key' }), 401, 'invalid_api_key');
    expectEnvelope(await call(api, '/v1/nowhere', undefined, { key: broke.key }), 404, 'not_found');

    // Counted in memory only: nothing in the table yet.
    expect(pendingRefusals()).toBe(10 + 4 + 3 + 1 + 1);
    expect(await rowsOf(throttled.id)).toEqual([]);

    expect(await flushRefusals(getPool())).toBe(19);
    expect(pendingRefusals()).toBe(0);
    expect(await rowsOf(throttled.id)).toEqual([
      { api_key_id: throttled.id, operation: 'text.generate', status: 429, code: 'rate_limited', count: 10 },
    ]);
    // The unknown path names no key: the key is not looked up there, so it counts as keyless.
    expect(await rowsOf(broke.id)).toEqual([
      { api_key_id: broke.id, operation: 'text.generate', status: 402, code: 'quota_exhausted', count: 3 },
      { api_key_id: broke.id, operation: 'text.generate', status: 422, code: 'validation_error', count: 4 },
    ]);
    expect(await keylessCount('invalid_api_key')).toBe(keylessBefore + 1);
  });

  it('a second flush adds to the same minute rows (one upsert), and an empty flush writes nothing', async () => {
    const key = await createTestKey({ quota: 0 });
    const minute = Date.UTC(2026, 0, 1, 12, 0);
    countRefusal(key.id, 'text.generate', 402, 'quota_exhausted', minute + 1_000);
    countRefusal(key.id, 'text.generate', 402, 'quota_exhausted', minute + 59_000);
    countRefusal(key.id, 'text.generate', 402, 'quota_exhausted', minute + 60_000);
    expect(await flushRefusals(getPool())).toBe(3);
    countRefusal(key.id, 'text.generate', 402, 'quota_exhausted', minute + 30_000);
    expect(await flushRefusals(getPool())).toBe(1);
    expect(await flushRefusals(getPool())).toBe(0);
    const { rows } = await getPool().query<{ minute: Date; count: number }>(
      'SELECT minute, count FROM refused_requests WHERE api_key_id = $1 ORDER BY minute',
      [key.id],
    );
    expect(rows.map((r) => [r.minute.getTime(), r.count])).toEqual([
      [minute, 3],
      [minute + 60_000, 1],
    ]);
  });

  it('a flush that fails keeps its counts for the next one', async () => {
    const key = await createTestKey();
    countRefusal(key.id, 'code.generate', 415, 'unsupported_media_type');
    const broken = { query: () => Promise.reject(new Error('connection terminated')) } as unknown as ReturnType<typeof getPool>;
    await expect(flushRefusals(broken)).rejects.toThrow('connection terminated');
    expect(pendingRefusals()).toBe(1);
    expect(await flushRefusals(getPool())).toBe(1);
    expect(await rowsOf(key.id)).toEqual([
      { api_key_id: key.id, operation: 'code.generate', status: 415, code: 'unsupported_media_type', count: 1 },
    ]);
  });
});
