import { createHash, randomUUID } from 'node:crypto';
import { getConfig } from '../../config';
import { getPool } from '../../db/client';
import { canonicalJson } from '../canonical-json';
import { ApiError } from '../errors';

// Idempotency (CONTRACT.md §4) in PostgreSQL, shared by every instance. A key is claimed by
// one atomic upsert; it is taken over only when its holder's lease ran out (a crash) or its
// stored response expired. Only 2xx responses are kept; any error frees the key.

export interface IdempotencyScope {
  apiKeyId: string;
  method: string;
  path: string;
  key: string;
}

export type ClaimResult =
  | { kind: 'claimed'; recordId: string }
  | { kind: 'replay'; status: number; body: string };

export function requestFingerprint(method: string, path: string, body: unknown): string {
  return createHash('sha256').update(`${method}\n${path}\n${canonicalJson(body)}`).digest('hex');
}

interface ExistingRow {
  fingerprint: string;
  status: 'running' | 'completed';
  response_status: number | null;
  response_body: string | null;
  lease_left_ms: number;
}

export async function claimIdempotencyKey(scope: IdempotencyScope, fingerprint: string): Promise<ClaimResult> {
  const config = getConfig();
  const pool = getPool();
  for (let attempt = 0; attempt < 3; attempt++) {
    const claimed = await pool.query<{ id: string }>({
      name: 'wgs-idempotency-claim',
      text: `INSERT INTO idempotency_records AS r
               (id, api_key_id, method, path, key, fingerprint, status, locked_until, expires_at)
             VALUES ($1, $2, $3, $4, $5, $6, 'running', now() + make_interval(secs => $7), now() + make_interval(hours => $8))
             ON CONFLICT (api_key_id, method, path, key) DO UPDATE
               SET id = EXCLUDED.id, fingerprint = EXCLUDED.fingerprint, status = 'running',
                   locked_until = EXCLUDED.locked_until, expires_at = EXCLUDED.expires_at,
                   response_status = NULL, response_body = NULL, created_at = now()
               WHERE (r.status = 'running' AND r.locked_until < now()) OR r.expires_at < now()
             RETURNING id`,
      values: [randomUUID(), scope.apiKeyId, scope.method, scope.path, scope.key, fingerprint,
        config.IDEMPOTENCY_LEASE_SECONDS, config.IDEMPOTENCY_RETENTION_HOURS],
    });
    if (claimed.rows[0]) return { kind: 'claimed', recordId: claimed.rows[0].id };

    const { rows } = await pool.query<ExistingRow>({
      name: 'wgs-idempotency-existing',
      text: `SELECT fingerprint, status, response_status, response_body,
                    GREATEST(0, EXTRACT(EPOCH FROM (locked_until - now())) * 1000)::int AS lease_left_ms
               FROM idempotency_records
              WHERE api_key_id = $1 AND method = $2 AND path = $3 AND key = $4`,
      values: [scope.apiKeyId, scope.method, scope.path, scope.key],
    });
    const existing = rows[0];
    if (!existing) continue; // freed between our two statements: claim again
    if (existing.fingerprint !== fingerprint) throw new ApiError('idempotency_key_reused');
    if (existing.status === 'completed' && existing.response_status !== null && existing.response_body !== null) {
      return { kind: 'replay', status: existing.response_status, body: existing.response_body };
    }
    throw new ApiError('idempotency_key_in_use', { retryAfter: 1 });
  }
  throw new ApiError('idempotency_key_in_use', { retryAfter: 1 });
}

/** Frees the key after an error, so a retry with it runs again. */
export async function releaseIdempotencyKey(recordId: string): Promise<void> {
  await getPool().query({
    name: 'wgs-idempotency-release',
    text: `DELETE FROM idempotency_records WHERE id = $1 AND status = 'running'`,
    values: [recordId],
  });
}

/** Stores a 2xx response for replay (used where no unit hold is settled in the same statement). */
export async function completeIdempotencyKey(recordId: string, status: number, body: string): Promise<void> {
  await getPool().query({
    name: 'wgs-idempotency-complete',
    text: `UPDATE idempotency_records SET status = 'completed', response_status = $2, response_body = $3
            WHERE id = $1`,
    values: [recordId, status, body],
  });
}

export async function deleteExpiredIdempotencyRecords(): Promise<number> {
  const result = await getPool().query(
    `DELETE FROM idempotency_records WHERE id IN (
       SELECT id FROM idempotency_records WHERE expires_at < now() LIMIT 5000)`,
  );
  return result.rowCount ?? 0;
}
