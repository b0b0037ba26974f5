import { createHash } from 'node:crypto';
import sql from 'sql-template-tag';
import type { SqlDb } from '../../db/client';
import { claimCte, claimValuesOf, existingCte, type IdempotencyScope } from './claim-sql';
import { prepared } from './sql-statement';
import { canonicalJson } from '../canonical-json';
import { ApiError } from '../errors';
import type { Replay } from './reservation';

// Idempotency (CONTRACT.md §4) in PostgreSQL, shared by every instance. A key is claimed by
// one atomic upsert (billing/claim-sql.ts); it is taken over only when its holder's lease ran out
// (a crash) or its stored response expired. Only 2xx responses are kept; any error frees the key.

export type ClaimResult = { kind: 'claimed'; recordId: string } | Replay;

export function requestFingerprint(method: string, path: string, body: unknown): string {
  return createHash('sha256')
    .update(`${method}\n${path}\n${canonicalJson(body)}`)
    .digest('hex');
}

export interface ExistingRow {
  fingerprint: string;
  status: 'running' | 'completed';
  response_status: number | null;
  response_body: string | null;
  response_events: string | null;
  /** Its stored answer is given again (claim-sql.ts existingCte). */
  replayable: boolean;
}

/** The record that kept this request from claiming the key: a replay, or 422 / 409. */
export function judgeExisting(existing: ExistingRow, fingerprint: string): Replay {
  if (existing.fingerprint !== fingerprint) throw new ApiError('idempotency_key_reused');
  const { response_status: status, response_body: body, response_events: events } = existing;
  if (existing.replayable && status !== null && body !== null) {
    return { kind: 'replay', status, body, ...(events !== null ? { events } : {}) };
  }
  throw new ApiError('idempotency_key_in_use', { retryAfter: 1 });
}

/** The record of a key as it stands, if any (read only). */
export async function findExisting(db: SqlDb, scope: IdempotencyScope): Promise<ExistingRow | undefined> {
  const { rows } = await db.pool.query<ExistingRow>(
    prepared('wgs-idempotency-existing', sql`WITH ${existingCte(scope)} SELECT * FROM existing`),
  );
  return rows[0];
}

export async function claimIdempotencyKey(db: SqlDb, scope: IdempotencyScope, fingerprint: string): Promise<ClaimResult> {
  for (let attempt = 0; attempt < 3; attempt++) {
    const claimed = await db.provisional.query<{ id: string }>(
      prepared('wgs-idempotency-claim', sql`WITH ${claimCte(claimValuesOf(scope, fingerprint))} SELECT id FROM claim`),
    );
    if (claimed.rows[0]) return { kind: 'claimed', recordId: claimed.rows[0].id };
    const existing = await findExisting(db, scope);
    if (existing) return judgeExisting(existing, fingerprint);
    // freed between our two statements: claim again
  }
  throw new ApiError('idempotency_key_in_use', { retryAfter: 1 });
}

/**
 * Frees the key after an error, so a retry with it runs again. The record id is this request's
 * lease token: a retry that took the key over after the lease ran out wrote a new id.
 */
export async function releaseIdempotencyKey(db: SqlDb, recordId: string): Promise<void> {
  await db.pool.query(
    prepared('wgs-idempotency-release', sql`DELETE FROM idempotency_records WHERE id = ${recordId}::uuid AND status = 'running'`),
  );
}

/** Stores a 2xx response for replay (used where no unit hold is settled in the same statement). */
export async function completeIdempotencyKey(db: SqlDb, recordId: string, status: number, body: string): Promise<void> {
  await db.pool.query(
    prepared(
      'wgs-idempotency-complete',
      sql`UPDATE idempotency_records SET status = 'completed', response_status = ${status}::int, response_body = ${body}::text
           WHERE id = ${recordId}::uuid`,
    ),
  );
}

export async function deleteExpiredIdempotencyRecords(db: SqlDb): Promise<number> {
  const result = await db.pool.query(
    `DELETE FROM idempotency_records WHERE id IN (
       SELECT id FROM idempotency_records WHERE expires_at < now() LIMIT 5000)`,
  );
  return result.rowCount ?? 0;
}
