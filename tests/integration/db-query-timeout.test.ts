import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { testDatabaseUrl } from '../setup/test-database';
import { ClosingOnTimeoutClient } from '@/server/db/client';

// A query unanswered past query_timeout fails the request (503), and its connection must never
// serve anyone again: pg leaves the query running on it, so inside a transaction the next user of
// the connection would write into a transaction that is not its own (and is later rolled back).

const url = testDatabaseUrl();
const pools: pg.Pool[] = [];
afterAll(async () => {
  for (const pool of pools) await pool.end();
});

function poolOf(Client: typeof pg.Client): pg.Pool {
  const pool = new pg.Pool({ connectionString: url, max: 1, query_timeout: 500, Client });
  pool.on('error', () => {});
  pools.push(pool);
  return pool;
}

async function timedOutTransactionThenInserts(pool: pg.Pool, table: string): Promise<number> {
  await pool.query(`CREATE TABLE ${table} (n int)`);
  const client = await pool.connect();
  await client.query('BEGIN');
  await expect(client.query('SELECT pg_sleep(1.5)')).rejects.toThrow('Query read timeout');
  await client.query('ROLLBACK').catch(() => {});
  client.release();
  for (let i = 0; i < 5; i++) await pool.query(`INSERT INTO ${table} VALUES ($1)`, [i]);
  const other = new pg.Client({ connectionString: url });
  await other.connect();
  const { rows } = await other.query(`SELECT count(*)::int AS n FROM ${table}`);
  await other.end();
  return rows[0].n;
}

describe('a query that times out', () => {
  it('closes its connection: what the pool runs next is committed on its own, as told', async () => {
    expect(await timedOutTransactionThenInserts(poolOf(ClosingOnTimeoutClient), `qt_closing_${process.pid}`)).toBe(5);
  });
});
