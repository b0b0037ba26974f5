import pg from 'pg';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { createHash } from 'node:crypto';
import { disconnectDb, getPool, getProvisionalPool } from '@/server/db/client';
import { api, call, createTestKey, expectEnvelope, newIdempotencyKey } from '../helpers/api';
import { recordStatements } from '../helpers/sql-statements';

// The statements each kind of request sends to PostgreSQL, counted at the driver: with the rate
// windows in PostgreSQL (no REDIS_URL) the paid hot path makes 2 round trips (rate point +
// idempotency claim + unit hold; capture + usage event + stored response), a replay 1 (its record
// is read by that first statement, which then takes no point), and rejections make none.

const TEXT = '/v1/text/generate';

afterEach(() => vi.restoreAllMocks());
afterAll(() => disconnectDb());

/** The SQL statements sent while `work` runs (the key lookup left out: helpers/sql-statements.ts). */
async function statementsDuring(work: () => Promise<unknown>): Promise<string[]> {
  const recording = recordStatements();
  try {
    await work();
  } finally {
    recording.stop();
  }
  return recording.statements();
}

describe('database round trips per request', () => {
  it('a paid text.generate: 2 statements; its replay: 1 (the record read before any point is taken)', async () => {
    const { key } = await createTestKey({ quota: 100 });
    const idempotencyKey = newIdempotencyKey();

    const paid = await statementsDuring(async () => {
      const response = await call(api, TEXT, { input: 'count me' }, { key, idempotencyKey });
      expect(response.status, response.text).toBe(200);
    });
    expect(paid, paid.join('\n---\n')).toHaveLength(2);
    expect(paid[0]).toContain('wgs_rate_take');
    expect(paid[0]).toContain('INSERT INTO idempotency_records');
    expect(paid[0]).toContain('INSERT INTO unit_holds');
    expect(paid[1]).toContain('INSERT INTO usage_events');

    const replay = await statementsDuring(async () => {
      const response = await call(api, TEXT, { input: 'count me' }, { key, idempotencyKey });
      expect(response.headers.get('idempotent-replayed')).toBe('true');
    });
    expect(replay, replay.join('\n---\n')).toHaveLength(1);
  });

  it('a POST that charges nothing (an upload) takes its rate point and claims its key in one statement', async () => {
    const { key } = await createTestKey({ operations: { 'images.generate': { engine: 'local', units: 5, input_uploads: true } } });
    const upload = { purpose: 'image_input', mime_type: 'image/png', filename: 'in.png', size_bytes: 10 };
    const sent = await statementsDuring(async () => {
      const response = await call(
        api,
        '/v1/uploads',
        { ...upload, sha256: createHash('sha256').update('x').digest('hex') },
        { key, idempotencyKey: newIdempotencyKey() },
      );
      expect(response.status, response.text).toBe(201);
    });
    const reserving = sent.filter((sql) => sql.includes('wgs_rate_take') || sql.includes('INSERT INTO idempotency_records'));
    expect(reserving, sent.join('\n---\n')).toHaveLength(1);
    expect(reserving[0]).toContain('wgs_rate_take');
    expect(reserving[0]).toContain('INSERT INTO idempotency_records');
    expect(reserving[0]).not.toContain('INSERT INTO unit_holds');
  });

  it('401 and 422 send no statement but the (cached) key lookup', async () => {
    const { key } = await createTestKey({ quota: 100 });
    const unknown = `wgs_live_${'x'.repeat(40)}`;
    const sent = await statementsDuring(async () => {
      expectEnvelope(await call(api, TEXT, { input: 'x' }, { key: unknown }), 401, 'invalid_api_key');
      expectEnvelope(await call(api, TEXT, { input: '' }, { key }), 422, 'validation_error');
    });
    expect(sent).toEqual([]);
  });
});

describe('commit durability per statement', () => {
  it('provisional writes (claim, rate point, hold) commit without waiting for the flush; settling waits for it', async () => {
    const setting = async (pool: pg.Pool) =>
      (await pool.query<{ s: string }>(`SELECT current_setting('synchronous_commit') AS s`)).rows[0]!.s;
    expect(await setting(getProvisionalPool())).toBe('off');
    expect(await setting(getPool())).toBe('on');
  });
});
