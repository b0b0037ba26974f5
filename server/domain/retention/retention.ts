import sql from 'sql-template-tag';
import type { SqlDb } from '../../db/client';
import { prepared } from '../../db/named-statement';
import { getObjectStore } from '../../storage/get-object-store';
import { sweepBatches } from './sweep-batches';

// Storage expires (UPLOAD_RETENTION_HOURS, OUTPUT_RETENTION_HOURS): past its time an upload or an
// output loses its object and its row is marked deleted; the bytes stop counting against the
// key's max_stored_bytes in the same statement. Each row is marked once, whichever instance
// sweeps it, so a key's count is never taken down twice.

/**
 * Stores a generated output and adds it to what its key holds. Recorded first: an object stored is
 * always one the retention sweep knows of. A put that failed takes the record back (and whatever
 * part of the object was written), so a storage outage does not fill the key's max_stored_bytes
 * with outputs nobody has; a retried job then records its result again.
 */
export async function storeOutputObject(
  db: SqlDb,
  owner: { apiKeyId: string; storageKey: string },
  bytes: Buffer,
  mimeType: string,
): Promise<void> {
  await recordOutput(db, owner.apiKeyId, owner.storageKey, bytes.length);
  try {
    await getObjectStore().put(owner.storageKey, bytes, mimeType);
  } catch (error) {
    // The put may have written nothing: the record goes even when the object's delete fails.
    await discardOutput(db, owner.storageKey)
      .catch(() => forgetOutput(db, owner.storageKey))
      .catch(() => {});
    throw error;
  }
}

/** A stored output nobody will get (its job was cancelled): the object goes, then its record (kept for the sweep if the delete fails). */
export async function discardOutput(db: SqlDb, storageKey: string): Promise<void> {
  await getObjectStore().delete(storageKey);
  await forgetOutput(db, storageKey);
}

/** Adds a generated output to what its key holds (once per object: a retried job reuses its key). */
async function recordOutput(db: SqlDb, apiKeyId: string, storageKey: string, sizeBytes: number): Promise<void> {
  await db.pool.query(
    prepared(
      'wgs-output-record',
      sql`WITH added AS (
            INSERT INTO stored_outputs (storage_key, api_key_id, size_bytes) VALUES (${storageKey}, ${apiKeyId}, ${sizeBytes})
            ON CONFLICT (storage_key) DO NOTHING RETURNING api_key_id, size_bytes)
          UPDATE api_keys k SET stored_bytes = k.stored_bytes + a.size_bytes FROM added a WHERE k.id = a.api_key_id`,
    ),
  );
}

/** Its record goes, and its bytes stop counting. */
async function forgetOutput(db: SqlDb, storageKey: string): Promise<void> {
  await db.pool.query(
    prepared(
      'wgs-output-forget',
      sql`WITH gone AS (DELETE FROM stored_outputs WHERE storage_key = ${storageKey} AND deleted_at IS NULL RETURNING api_key_id, size_bytes)
          UPDATE api_keys k SET stored_bytes = k.stored_bytes - g.size_bytes FROM gone g WHERE k.id = g.api_key_id`,
    ),
  );
}

/**
 * Uploads created more than `hours` ago: the verified copy (or a pending upload's bytes) is
 * deleted, the row marked `deleted_at` (a pending one also `expired`); the upload is then 404
 * as an input and on complete. An expired upload's bytes were already gone and uncounted.
 */
export function deleteExpiredUploads(db: SqlDb, hours: number): Promise<number> {
  return sweepBatches(
    db,
    (batch) =>
      prepared(
        'wgs-upload-retention-claim',
        sql`SELECT id, status, storage_key FROM uploads
             WHERE deleted_at IS NULL AND created_at <= now() - make_interval(hours => ${hours})
             ORDER BY created_at LIMIT ${batch} FOR UPDATE SKIP LOCKED`,
      ),
    (row) => row.storage_key,
    (ids) =>
      prepared(
        'wgs-upload-retention-mark',
        sql`WITH before AS (SELECT id, status AS was FROM uploads WHERE id = ANY(${ids}::text[])),
          marked AS (
            UPDATE uploads u SET deleted_at = now(),
                   status = CASE WHEN u.status = 'pending' THEN 'expired'::"UploadStatus" ELSE u.status END
              FROM before b WHERE u.id = b.id
            RETURNING u.api_key_id, u.size_bytes, b.was)
     UPDATE api_keys k SET stored_bytes = k.stored_bytes - m.total
       FROM (SELECT api_key_id, sum(size_bytes) AS total FROM marked WHERE was <> 'expired' GROUP BY api_key_id) m
      WHERE k.id = m.api_key_id`,
      ),
  );
}

/** Outputs made more than `hours` ago: the object is deleted (its URLs answer 404), the row marked. */
export function deleteExpiredOutputs(db: SqlDb, hours: number): Promise<number> {
  return sweepBatches(
    db,
    (batch) =>
      prepared(
        'wgs-output-retention-claim',
        sql`SELECT storage_key AS id, 'stored' AS status, storage_key FROM stored_outputs
             WHERE deleted_at IS NULL AND created_at <= now() - make_interval(hours => ${hours})
             ORDER BY created_at LIMIT ${batch} FOR UPDATE SKIP LOCKED`,
      ),
    (row) => row.storage_key,
    (ids) =>
      prepared(
        'wgs-output-retention-mark',
        sql`WITH marked AS (UPDATE stored_outputs SET deleted_at = now() WHERE storage_key = ANY(${ids}::text[]) RETURNING api_key_id, size_bytes)
            UPDATE api_keys k SET stored_bytes = k.stored_bytes - m.total
              FROM (SELECT api_key_id, sum(size_bytes) AS total FROM marked GROUP BY api_key_id) m
             WHERE k.id = m.api_key_id`,
      ),
  );
}

const HOUR_MS = 3_600_000;
let nextPartsSweep = 0;

/**
 * Deletes what writes to the local disk a killed process left (an upload's PUT cut short by a
 * kill leaves its temp file), once an hour per process, the first at its start: walking the store
 * costs more than the other sweeps. A write still going changes its file; one unchanged for an
 * hour was abandoned.
 */
export async function deleteAbandonedWrites(now = Date.now()): Promise<number> {
  const store = getObjectStore();
  if (!store.deleteAbandonedParts || now < nextPartsSweep) return 0;
  nextPartsSweep = now + HOUR_MS;
  return store.deleteAbandonedParts(new Date(now - HOUR_MS));
}
