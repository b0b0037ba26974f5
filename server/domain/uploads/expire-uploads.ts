import { getPool } from '../../db/client';
import { getObjectStore } from '../../storage/get-object-store';

// Pending uploads past expires_at become `expired` and lose their bytes. Rows are claimed with
// FOR UPDATE SKIP LOCKED, so any number of instances may run this at once without overlap; the
// bytes are deleted before the row commits, so a crash leaves the row pending for the next run.

const BATCH = 100;

export async function expireStaleUploads(): Promise<number> {
  let total = 0;
  for (;;) {
    const client = await getPool().connect();
    let count = 0;
    try {
      await client.query('BEGIN');
      const { rows } = await client.query<{ id: string; storage_key: string }>(
        `SELECT id, storage_key FROM uploads
          WHERE status = 'pending' AND expires_at <= now()
          ORDER BY expires_at LIMIT $1 FOR UPDATE SKIP LOCKED`,
        [BATCH],
      );
      const store = getObjectStore();
      for (const row of rows) await store.delete(row.storage_key);
      if (rows.length) {
        await client.query(`UPDATE uploads SET status = 'expired' WHERE id = ANY($1::text[])`, [rows.map((r) => r.id)]);
      }
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
