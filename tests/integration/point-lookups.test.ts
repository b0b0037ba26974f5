import type pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { disconnectDb, getPool, getProvisionalPool } from '@/server/db/client';

// The paid statements find a key's row (and its rate window's) by its index even when statistics
// call the table tiny (PLAN_LOOKUPS_BY_INDEX, db/client.ts). A cached plan made for one page goes
// on scanning every page once the table fills with dead row versions, which at a few keys and
// hundreds of calls a second it does.

afterAll(() => disconnectDb());

/** The generic plan of a one-row update by primary key on an analyzed table of one row, on a connection of `pool`. */
async function planOfPointUpdate(pool: pg.Pool, setting?: 'on'): Promise<string> {
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    if (setting) await client.query(`SET LOCAL enable_seqscan = ${setting}`);
    await client.query('CREATE TEMP TABLE point_lookup (id uuid PRIMARY KEY, n int NOT NULL) ON COMMIT DROP');
    await client.query(`INSERT INTO point_lookup VALUES ('00000000-0000-4000-8000-000000000001', 0)`);
    await client.query('ANALYZE point_lookup');
    const { rows } = await client.query<{ 'QUERY PLAN': string }>(
      'EXPLAIN (GENERIC_PLAN) UPDATE point_lookup SET n = n + 1 WHERE id = $1::uuid',
    );
    return rows.map((row) => row['QUERY PLAN']).join('\n');
  } finally {
    await client.query('ROLLBACK');
    client.release();
  }
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
