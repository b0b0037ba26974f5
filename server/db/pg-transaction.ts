import type pg from 'pg';

// One transaction on one pooled connection, for named statements that must commit together (a
// row lock and the writes it guards): BEGIN, the work, COMMIT; ROLLBACK when the work throws.

/** Runs `work` inside a transaction on a connection of `pool`, handed back to the pool after. */
export async function inPgTransaction<T>(pool: pg.Pool, work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    const result = await work(client);
    await client.query('COMMIT');
    return result;
  } catch (error) {
    await client.query('ROLLBACK').catch(() => {});
    throw error;
  } finally {
    client.release();
  }
}
