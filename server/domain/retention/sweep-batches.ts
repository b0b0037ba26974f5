import type { QueryConfig } from 'pg';
import type { SqlDb } from '../../db/client';
import { getObjectStore } from '../../storage/get-object-store';

// The shape of every storage sweep: rows are claimed with FOR UPDATE SKIP LOCKED, so any number
// of instances may run a sweep at once without overlap; a batch's objects are deleted in one
// call of the store (local disk, S3 DeleteObjects, Vercel Blob's del of a list) before the rows
// are marked, in the claim's transaction, so a crash leaves the rows for the next run and a
// deletion that is repeated finds nothing left to delete.

export const SWEEP_BATCH = 100;

export interface SweepRow {
  id: string;
  status: string;
  storage_key: string;
}

/**
 * Claims up to SWEEP_BATCH rows with the statement `claim` makes for that batch size, deletes the
 * objects `objectKey` names, marks the rows with the statement `mark` makes for their ids, until a
 * batch comes back short; returns how many rows were swept.
 */
export async function sweepBatches(
  db: SqlDb,
  claim: (batch: number) => QueryConfig,
  objectKey: (row: SweepRow) => string | undefined,
  mark: (ids: string[]) => QueryConfig,
): Promise<number> {
  let total = 0;
  for (;;) {
    const client = await db.pool.connect();
    let count = 0;
    try {
      await client.query('BEGIN');
      const { rows } = await client.query<SweepRow>(claim(SWEEP_BATCH));
      const keys = rows.map(objectKey).filter((key): key is string => key !== undefined);
      await getObjectStore().deleteMany([...new Set(keys)]);
      if (rows.length) await client.query(mark(rows.map((row) => row.id)));
      await client.query('COMMIT');
      count = rows.length;
    } catch (error) {
      await client.query('ROLLBACK').catch(() => {});
      throw error;
    } finally {
      client.release();
    }
    total += count;
    if (count < SWEEP_BATCH) return total;
  }
}
