import { afterAll, describe, expect, it } from 'vitest';
import pg from 'pg';
import { disconnectDb, getPool, getSqlDb } from '@/server/db/client';
import { testDatabaseUrl } from '../setup/test-database';

// A pooled client checked out (a transaction waiting on other work) whose connection the database
// ends (a restart) must not be an uncaught exception: the pool listens on idle clients only. Its
// next query fails, and the pool goes on with fresh connections. (vitest fails the run on an
// uncaught error.) Found by `npm run chaos` with postgres-restarted.

afterAll(() => disconnectDb());

async function terminate(processId: number): Promise<void> {
  const admin = new pg.Client({ connectionString: testDatabaseUrl() });
  await admin.connect();
  try {
    await admin.query('SELECT pg_terminate_backend($1)', [processId]);
  } finally {
    await admin.end();
  }
}

describe('a checked-out client whose connection the database ended', () => {
  for (const [name, pool] of [
    ['the pool', () => getPool()],
    ['the provisional pool', () => getSqlDb().provisional],
  ] as const) {
    it(`${name}: no uncaught error, its next query fails, the pool serves again`, async () => {
      const uncaught: unknown[] = [];
      const note = (error: unknown) => uncaught.push(error);
      process.on('uncaughtException', note);
      try {
        const client = await pool().connect();
        await client.query('BEGIN');
        const ended = new Promise<void>((resolve) => client.once('end', () => resolve()));
        await terminate((client as unknown as { processID: number }).processID);
        await ended;
        await expect(client.query('SELECT 1')).rejects.toThrow();
        client.release(true);
        expect(uncaught).toEqual([]);
        expect((await pool().query<{ one: number }>('SELECT 1 AS one')).rows).toEqual([{ one: 1 }]);
      } finally {
        process.off('uncaughtException', note);
      }
    });
  }
});
