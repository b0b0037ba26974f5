import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { isStoreUnavailable } from '@/server/db/store-unavailable';
import { disconnectDb, getPool, getPrisma, getSqlDb } from '@/server/db/client';
import { RESERVE_PAID, writeBatched } from '@/server/domain/billing/batched-writes';
import { claimValuesOf } from '@/server/domain/billing/claim-sql';
import { rateClaimHoldStatement, type RateClaimHoldRow } from '@/server/domain/billing/reserve-statements';
import { captureHold, holdUnits, holdValuesOf } from '@/server/domain/billing/unit-holds';
import { rateWindowOf } from '@/server/domain/rate-limit/request-rate';
import { api, call, createTestKey, newIdempotencyKey } from '../helpers/api';
import { recordStatements } from '../helpers/sql-statements';

// Concurrent paid calls share their statements (billing/batched-writes.ts): a batch is one
// statement and one commit, and each call still gets its own answer, in the order of the checks,
// with every unit accounted for once.

const TEXT = '/v1/text/generate';

afterEach(() => vi.restoreAllMocks());
afterAll(() => disconnectDb());

async function books(id: string) {
  const { rows } = await getPool().query<{ remaining_units: number; in_flight: number; events: number; held: number }>(
    `SELECT remaining_units, in_flight,
            (SELECT count(*) FROM usage_events WHERE api_key_id = k.id AND outcome = 'succeeded')::int AS events,
            (SELECT count(*) FROM unit_holds WHERE api_key_id = k.id AND status = 'held')::int AS held
       FROM api_keys k WHERE id = $1`,
    [id],
  );
  return rows[0]!;
}

/** `count` paid calls at once; their statuses, sorted, and the statements sent meanwhile. */
async function burst(count: number, key: string, idempotencyKey?: () => string) {
  const recording = recordStatements();
  try {
    const results = await Promise.all(
      Array.from({ length: count }, (_, index) =>
        call(
          api,
          TEXT,
          { input: idempotencyKey ? 'the same call' : `call ${index}` },
          { key, idempotencyKey: idempotencyKey?.() ?? newIdempotencyKey() },
        ),
      ),
    );
    return { statuses: results.map((result) => result.status).sort(), statements: recording.statements() };
  } finally {
    recording.stop();
  }
}

const batched = (statements: string[], name: string) => statements.filter((sql) => sql.includes(name)).length;

describe('batched reservations and captures', () => {
  it('more calls than units: as many are charged as there are units, the rest refused 402, in batches', async () => {
    const { key, id } = await createTestKey({ quota: 7 });
    const { statuses, statements } = await burst(20, key);
    expect(statuses).toEqual([...Array<number>(7).fill(200), ...Array<number>(13).fill(402)]);
    expect(await books(id)).toEqual({ remaining_units: 0, in_flight: 0, events: 7, held: 0 });
    expect(batched(statements, 'wgs_batch_reserve_paid')).toBeGreaterThan(0);
    // Fewer statements than calls: the batches wrote several calls each.
    expect(statements.filter((sql) => sql.includes('wgs_rate_take') || sql.includes('wgs_batch_reserve_paid')).length).toBeLessThan(20);
  });

  it('one Idempotency-Key sent many times at once: one call runs and is charged, the others 409 or its replay', async () => {
    const { key, id } = await createTestKey({ quota: 100 });
    const idempotencyKey = newIdempotencyKey();
    const { statuses } = await burst(12, key, () => idempotencyKey);
    expect(statuses.filter((status) => status !== 200 && status !== 409)).toEqual([]);
    expect(await books(id)).toEqual({ remaining_units: 99, in_flight: 0, events: 1, held: 0 });
  });

  it('the concurrency limit counts the calls of the same batch', async () => {
    const { key, id } = await createTestKey({ quota: 100, concurrency: 3 });
    const { statuses } = await burst(15, key);
    expect(statuses.filter((status) => status !== 200 && status !== 429)).toEqual([]);
    expect(statuses.filter((status) => status === 200).length).toBeGreaterThanOrEqual(3);
    const charged = statuses.filter((status) => status === 200).length;
    expect(await books(id)).toEqual({ remaining_units: 100 - charged, in_flight: 0, events: charged, held: 0 });
  });

  it('captures in one batch: each hold captured once, a hold no longer held answered apart', async () => {
    const { id } = await createTestKey({ quota: 10 });
    const db = getSqlDb();
    const holdRequest = { apiKeyId: id, units: 2, operation: 'text.generate', requestId: 'r', concurrency: 100, leaseSeconds: 300 };
    const holds = [await holdUnits(db, holdRequest, null), await holdUnits(db, holdRequest, null), await holdUnits(db, holdRequest, null)];
    const { rows } = await getPool().query<{ version: string }>('SELECT package_version_id AS version FROM api_keys WHERE id = $1', [id]);
    const usage = {
      packageVersionId: rows[0]!.version,
      operation: 'text.generate',
      engine: 'local',
      requestId: 'r',
      durationMs: 1,
    };
    const capture = (holdId: string) => captureHold(db, { holdId, apiKeyId: id }, { ...usage, usageEventId: randomUUID() });
    // The first is written alone; the other three wait for it and go as one batch.
    const recording = recordStatements();
    const captured = await Promise.all([...holds.map((hold) => capture(hold.holdId)), capture(holds[0]!.holdId)]);
    recording.stop();
    expect(captured).toEqual([true, true, true, false]);
    expect(batched(recording.statements(), 'wgs_batch_capture_hold')).toBe(1);
    expect(await books(id)).toEqual({ remaining_units: 4, in_flight: 0, events: 3, held: 0 });
  });

  it('a batch the database refuses is written again call by call: only the call at fault fails', async () => {
    const { id } = await createTestKey({ quota: 100 });
    const statement = (holdId: string) =>
      rateClaimHoldStatement({
        rate: rateWindowOf(id, 10_000),
        claim: claimValuesOf({ apiKeyId: id, method: 'POST', path: TEXT, key: newIdempotencyKey() }, 'f'),
        hold: {
          ...holdValuesOf({ apiKeyId: id, units: 1, operation: 'text.generate', requestId: 'r', concurrency: 100, leaseSeconds: 300 }),
          holdId,
        },
      });
    const { provisional } = getSqlDb();
    const write = (holdId: string) =>
      writeBatched<RateClaimHoldRow>(provisional, RESERVE_PAID, { apiKeyId: id, statement: statement(holdId) });
    const answers = await Promise.allSettled([write(randomUUID()), write(randomUUID()), write('not a uuid'), write(randomUUID())]);
    expect(answers.map((answer) => answer.status)).toEqual(['fulfilled', 'fulfilled', 'rejected', 'fulfilled']);
    expect(answers.flatMap((answer) => (answer.status === 'fulfilled' ? [answer.value.remaining] : [])).sort()).toEqual([97, 98, 99]);
    await getPool().query("UPDATE unit_holds SET status = 'released' WHERE api_key_id = $1", [id]);
  });

  it('a call alone that PostgreSQL refused as a deadlock is written again, not answered 500', async () => {
    const deadlock = () => Object.assign(new pg.DatabaseError('deadlock detected', 0, 'error'), { code: '40P01' });
    let calls = 0;
    // A pool of its own (writers are kept per pool): the first two writes meet a deadlock, the third passes.
    const pool = {
      query: async () => {
        calls++;
        if (calls <= 2) throw deadlock();
        return { rows: [{ ok: true }] };
      },
    } as unknown as pg.Pool;
    const statement = { name: RESERVE_PAID.statementName, text: 'SELECT 1', values: [] };
    expect(await writeBatched(pool, RESERVE_PAID, { apiKeyId: randomUUID(), statement })).toEqual({ ok: true });
    expect(calls).toBe(3);
    // Past three attempts the deadlock is the call's: answered 503 as a database that cannot take it (never 500).
    calls = -10;
    await expect(writeBatched(pool, RESERVE_PAID, { apiKeyId: randomUUID(), statement })).rejects.toMatchObject({ code: '40P01' });
    expect(isStoreUnavailable(deadlock())).toBe(true);
  });

  it('a deadlock met through Prisma (the dashboard, the portal, the CLI) is an outage to retry, not a 500', async () => {
    const [first, second] = [await createTestKey(), await createTestKey()];
    const prisma = getPrisma();
    let bothLocked!: () => void;
    const locked = new Promise<void>((resolve) => {
      let count = 0;
      bothLocked = () => {
        if (++count === 2) resolve();
      };
    });
    // Two transactions lock the same two keys in opposite orders: PostgreSQL rolls one of them back (40P01).
    const crossing = (a: string, b: string) =>
      prisma.$transaction(async (tx) => {
        await tx.apiKey.update({ where: { id: a }, data: { label: 'deadlock' } });
        bothLocked();
        await locked;
        await tx.apiKey.update({ where: { id: b }, data: { label: 'deadlock' } });
      });
    const outcomes = await Promise.allSettled([crossing(first.id, second.id), crossing(second.id, first.id)]);
    const refused = outcomes.flatMap((outcome) => (outcome.status === 'rejected' ? [outcome.reason as unknown] : []));
    expect(refused).toHaveLength(1);
    expect(refused[0]).toMatchObject({ code: 'P2034' });
    expect(isStoreUnavailable(refused[0])).toBe(true);
  });
});
