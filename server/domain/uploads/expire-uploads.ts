import sql from 'sql-template-tag';
import type { SqlDb } from '../../db/client';
import { prepared } from '../../db/named-statement';
import { sweepBatches } from '../retention/sweep-batches';
import { uploadKeyOf } from './upload-keys';

// Sweeps of upload bytes (retention/sweep-batches.ts: SKIP LOCKED batches, any number of
// instances at once).

/**
 * How long after an upload's URL expired a PUT to it may still be arriving: S3 and Vercel Blob
 * check the signature when a request starts, and a 100 MB body may take a while after that.
 */
export const LATE_PUT_GRACE_SECONDS = 3600;

/** Pending uploads past expires_at become `expired` and lose their bytes, which no longer count against the key. */
export function expireStaleUploads(db: SqlDb): Promise<number> {
  return sweepBatches(
    db,
    (batch) =>
      prepared(
        'wgs-upload-expire-claim',
        sql`SELECT id, status, storage_key FROM uploads
             WHERE status = 'pending' AND expires_at <= now()
             ORDER BY expires_at LIMIT ${batch} FOR UPDATE SKIP LOCKED`,
      ),
    (row) => row.storage_key,
    (ids) =>
      prepared(
        'wgs-upload-expire-mark',
        sql`WITH marked AS (UPDATE uploads SET status = 'expired' WHERE id = ANY(${ids}::text[]) RETURNING api_key_id, size_bytes)
            UPDATE api_keys k SET stored_bytes = k.stored_bytes - m.total
              FROM (SELECT api_key_id, sum(size_bytes) AS total FROM marked GROUP BY api_key_id) m
             WHERE k.id = m.api_key_id`,
      ),
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
    (batch) =>
      prepared(
        'wgs-upload-key-clear-claim',
        sql`SELECT id, status, storage_key FROM uploads
             WHERE upload_key_cleared_at IS NULL AND expires_at <= now() - make_interval(secs => ${graceSeconds})
               AND status <> 'pending'
             ORDER BY expires_at LIMIT ${batch} FOR UPDATE SKIP LOCKED`,
      ),
    (row) => {
      const uploadKey = uploadKeyOf(row.storage_key);
      // A verified row names its sealed copy, never the upload key: that copy is never deleted here.
      return row.status === 'verified' && uploadKey === row.storage_key ? undefined : uploadKey;
    },
    (ids) => prepared('wgs-upload-key-clear-mark', sql`UPDATE uploads SET upload_key_cleared_at = now() WHERE id = ANY(${ids}::text[])`),
  );
}
