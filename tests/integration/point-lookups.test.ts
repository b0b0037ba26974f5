import type pg from 'pg';
import sql from 'sql-template-tag';
import { afterAll, describe, expect, it } from 'vitest';
import { disconnectDb, getPool, getProvisionalPool } from '@/server/db/client';
import { existingCte } from '@/server/domain/billing/claim-sql';
import { retriedCallLookup } from '@/server/domain/billing/implicit-keys';
import { settleHoldCtes } from '@/server/domain/billing/settlement-sql';

// The paid statements find each row by that row's own index even when statistics call the table
// tiny or empty. A connection keeps the plan it made on such statistics until the next analyze:
// a scan of every page once the table fills with dead row versions (the key's and the rate
// window's rows: PLAN_LOOKUPS_BY_INDEX, db/client.ts), or a read of every record of the key, or of
// every held hold, through an index that also fits (the idempotency record, the captured hold).

afterAll(() => disconnectDb());

/** The generic plan of `statement` on a connection of `pool`, after `setup`, in a transaction rolled back after. */
async function planAfter(pool: pg.Pool, setup: string[], statement: string): Promise<string> {
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    for (const step of setup) await client.query(step);
    const { rows } = await client.query<{ 'QUERY PLAN': string }>(`EXPLAIN (GENERIC_PLAN) ${statement}`);
    return rows.map((row) => row['QUERY PLAN']).join('\n');
  } finally {
    await client.query('ROLLBACK');
    client.release();
  }
}

/** The generic plan of a one-row update by primary key on an analyzed table of one row, on a connection of `pool`. */
function planOfPointUpdate(pool: pg.Pool, setting?: 'on'): Promise<string> {
  const setup = [
    ...(setting ? [`SET LOCAL enable_seqscan = ${setting}`] : []),
    'CREATE TEMP TABLE point_lookup (id uuid PRIMARY KEY, n int NOT NULL) ON COMMIT DROP',
    `INSERT INTO point_lookup VALUES ('00000000-0000-4000-8000-000000000001', 0)`,
    'ANALYZE point_lookup',
  ];
  return planAfter(pool, setup, 'UPDATE point_lookup SET n = n + 1 WHERE id = $1::uuid');
}

describe('point lookups by index', () => {
  it.each([
    ['durable', getPool],
    ['provisional', getProvisionalPool],
  ])('the %s pool plans an update of one row by its key as an index scan on a table of one row', async (_, pool) => {
    const plan = await planOfPointUpdate(pool());
    expect(plan).toMatch(/Index Scan using point_lookup_pkey/);
    expect(plan).not.toMatch(/Seq Scan/);
  });

  it("PostgreSQL's own choice for that table is a sequential scan (what the setting prevents)", async () => {
    expect(await planOfPointUpdate(getPool(), 'on')).toMatch(/Seq Scan on point_lookup/);
  });
});

/**
 * The generic plan of a statement run against an empty copy of `table` (its columns and indexes, as
 * migrated) that statistics call empty: what a fresh deployment's connections plan until autovacuum
 * analyzes the table again, while every call adds rows to it.
 */
function planOnEmptyCopy(table: string, statement: string): Promise<string> {
  // A temporary table of the same name is the one the statement's unqualified name reads.
  const setup = [`CREATE TEMP TABLE ${table} (LIKE public.${table} INCLUDING ALL) ON COMMIT DROP`, `ANALYZE ${table}`];
  return planAfter(getPool(), setup, statement);
}

describe('the idempotency record of a call', () => {
  it("is found by its key's unique index, not among all of its API key's records, even when statistics call the table empty", async () => {
    const scope = { apiKeyId: '00000000-0000-4000-8000-000000000001', method: 'POST', path: '/v1/text/generate', key: 'k' };
    const lookup = sql`WITH ${existingCte(scope)} SELECT * FROM existing`;
    const plan = await planOnEmptyCopy('idempotency_records', lookup.text);
    // The unique index of (api_key_id, method, path, key): all four are its condition, none a filter.
    expect(plan).toMatch(/Index Cond: \(\(api_key_id = \$1\) AND \(method = \$2\) AND \(path = \$3\) AND \(key = \$4\)\)/);
  });

  it("an SDK's retry finds the call it repeats among its fingerprint's newest records, through that index", async () => {
    const lookup = retriedCallLookup('00000000-0000-4000-8000-000000000001', 'f'.repeat(64), 60);
    const plan = await planOnEmptyCopy('idempotency_records', lookup.text);
    expect(plan).toMatch(/Index Scan Backward using idempotency_records_fingerprint_created_at_idx/);
    expect(plan).toMatch(/Index Cond: \(\(fingerprint = \$2\) AND \(created_at >= /);
  });
});

describe('the hold a call settles', () => {
  it('is found by its id, not among every held hold, even when statistics call the table empty', async () => {
    const settle = sql`WITH ${settleHoldCtes('captured', sql`${'00000000-0000-4000-8000-000000000001'}::uuid`)} SELECT * FROM hold`;
    const plan = await planOnEmptyCopy('unit_holds', settle.text);
    expect(plan).toMatch(/Index Scan using unit_holds_pkey on unit_holds\s+\(.*\)\s+Index Cond: \(id = \$1\)/);
  });
});
