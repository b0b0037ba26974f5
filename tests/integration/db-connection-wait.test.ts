import type pg from 'pg';
import { describe, expect, it } from 'vitest';
import { getPool, getPrisma } from '@/server/db/client';

// Every user of the pool waits as long for a connection: an operator's write (a Prisma
// transaction) that starts while the paid path holds every connection for a few seconds
// goes through once one is free, as a query would, instead of failing after Prisma's 2 s.

describe('a transaction started while the pool is busy', () => {
  it('waits for a free connection past 2 s and commits', async () => {
    const pool = getPool();
    const held: pg.PoolClient[] = [];
    for (let i = 0; i < pool.options.max; i++) held.push(await pool.connect());
    const transaction = getPrisma().$transaction(async (tx) => tx.$queryRaw<{ one: number }[]>`SELECT 1 AS one`);
    await new Promise((resolve) => setTimeout(resolve, 3_000));
    for (const client of held) client.release();
    await expect(transaction).resolves.toEqual([{ one: 1 }]);
  });
});
