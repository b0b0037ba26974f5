import type { SqlDb } from '../../db/client';
import { getObjectStore } from '../../storage/get-object-store';
import { uploadKeyOf } from './upload-keys';

// Rows are claimed with FOR UPDATE SKIP LOCKED, so any number of instances may run these sweeps
// at once without overlap; the bytes are deleted before the row commits, so a crash leaves the
// row for the next run.

const BATCH = 100;

/**
 * How long after an upload's URL expired a PUT to it may still be arriving: S3 and Vercel Blob
 * check the signature when a request starts, and a 100 MB body may take a while after that.
 */
export const LATE_PUT_GRACE_SECONDS = 3600;

interface Row {
  id: string;
  status: string;
  storage_key: string;
}

/** Claims up to BATCH rows with `claim`, deletes each row's object (if any), marks them with `mark`; returns how many. */
async function sweepBatches(
  db: SqlDb,
  claim: string,
  params: unknown[],
  objectKey: (row: Row) => string | undefined,
  mark: string,
): Promise<number> {
  let total = 0;
  for (;;) {
    const client = await db.pool.connect();
    let count = 0;
    try {
      await client.query('BEGIN');
      const { rows } = await client.query<Row>(claim, [BATCH, ...params]);
      const store = getObjectStore();
      for (const row of rows) {
        const key = objectKey(row);
        if (key) await store.delete(key);
      }
      if (rows.length) await client.query(mark, [rows.map((row) => row.id)]);
      await client.query('COMMIT');
      count = rows.length;
    } catch (error) {
      await client.query('ROLLBACK').catch(() => {});
      throw error;
    } finally {
      client.release();
    }
    total += count;
    if (count < BATCH) return total;
  }
}

/** Pending uploads past expires_at become `expired` and lose their bytes. */
export function expireStaleUploads(db: SqlDb): Promise<number> {
  return sweepBatches(
    db,
    `SELECT id, status, storage_key FROM uploads
      WHERE status = 'pending' AND expires_at <= now()
      ORDER BY expires_at LIMIT $1 FOR UPDATE SKIP LOCKED`,
    [],
    (row) => row.storage_key,
    `UPDATE uploads SET status = 'expired' WHERE id = ANY($1::text[])`,
  );
}

/**
 * Once an upload's URL can no longer be used (expires_at + the grace), deletes what a late PUT
 * may have left at its upload key after it was verified or expired: bytes nothing refers to.
 * Each upload is swept once.
 */
export function clearClosedUploadKeys(db: SqlDb, graceSeconds = LATE_PUT_GRACE_SECONDS): Promise<number> {
  return sweepBatches(
    db,
    `SELECT id, status, storage_key FROM uploads
      WHERE upload_key_cleared_at IS NULL AND expires_at <= now() - make_interval(secs => $2)
        AND status <> 'pending'
      ORDER BY expires_at LIMIT $1 FOR UPDATE SKIP LOCKED`,
    [graceSeconds],
    (row) => {
      const uploadKey = uploadKeyOf(row.storage_key);
      // A verified row names its sealed copy, never the upload key: that copy is never deleted here.
      return row.status === 'verified' && uploadKey === row.storage_key ? undefined : uploadKey;
    },
    `UPDATE uploads SET upload_key_cleared_at = now() WHERE id = ANY($1::text[])`,
  );
}
