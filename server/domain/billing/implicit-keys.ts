import sql, { type Sql } from 'sql-template-tag';
import type { SqlDb } from '../../db/client';
import { prepared } from './sql-statement';

// Exactly once without an Idempotency-Key (the OpenAI-compatible surface, docs/openai-compatible.md):
// each first attempt claims a key of its own, `implicit/<request id>`, so two calls with the same
// body are two calls; an SDK's retry (X-Stainless-Retry-Count >= 1) takes the key of the latest call
// with its fingerprint (method, path and body) that the key's records hold from the last lease, and
// is answered by that call's record like any retry with its key: replayed, or 409 while it runs.

const IMPLICIT_PREFIX = 'implicit/';

/** The idempotency key a first attempt without an Idempotency-Key claims; `/` is outside the header's alphabet. */
export function implicitKey(requestId: string): string {
  return `${IMPLICIT_PREFIX}${requestId}`;
}

/**
 * The implicit key of the latest call of `apiKeyId` with this fingerprint whose record was claimed
 * within the last `leaseSeconds` and is still kept; undefined when there is none (a call that failed
 * freed its record, so its retry runs as a new call, as nothing was charged for it).
 */
export async function findRetriedCall(db: SqlDb, apiKeyId: string, fingerprint: string, leaseSeconds: number): Promise<string | undefined> {
  const { rows } = await db.pool.query<{ key: string }>(
    prepared('wgs-idempotency-retried-call', retriedCallLookup(apiKeyId, fingerprint, leaseSeconds)),
  );
  return rows[0]?.key;
}

/** findRetriedCall's statement: the newest of the key's records with this fingerprint, read through the (fingerprint, created_at) index. */
export function retriedCallLookup(apiKeyId: string, fingerprint: string, leaseSeconds: number): Sql {
  return sql`SELECT key FROM idempotency_records
              WHERE api_key_id = ${apiKeyId}::uuid AND fingerprint = ${fingerprint}::text
                AND starts_with(key, ${IMPLICIT_PREFIX}::text)
                AND created_at >= now() - make_interval(secs => ${leaseSeconds}::int) AND expires_at >= now()
              ORDER BY created_at DESC LIMIT 1`;
}
