import { randomUUID } from 'node:crypto';
import sql, { type Sql } from 'sql-template-tag';
import { getConfig } from '../../config';

// The idempotency claim (CONTRACT.md §4) as SQL fragments taking named values, shared by every
// statement that claims a key: the claim alone, the claim with a unit hold, and the claim with the
// minute's rate point and a hold (reserve-statements.ts).

/** An Idempotency-Key's scope (CONTRACT.md §4): the API key, method and path it was sent with. */
export interface IdempotencyScope {
  apiKeyId: string;
  method: string;
  path: string;
  key: string;
}

export interface ClaimValues {
  /** The new record's id: this request's lease token. */
  recordId: string;
  scope: IdempotencyScope;
  fingerprint: string;
  leaseSeconds: number;
  retentionHours: number;
}

export function claimValuesOf(scope: IdempotencyScope, fingerprint: string): ClaimValues {
  const config = getConfig();
  return {
    recordId: randomUUID(),
    scope,
    fingerprint,
    leaseSeconds: config.IDEMPOTENCY_LEASE_SECONDS,
    retentionHours: config.IDEMPOTENCY_RETENTION_HOURS,
  };
}

/**
 * CTE `claim`: the record id when this request took the key (new, or taken over from a holder whose
 * lease ran out or whose stored response expired), no row otherwise. Only when `gate` holds. A key
 * whose holder began to deliver a streamed answer is never taken over: that call is charged, and the
 * key stays with it (CONTRACT.md §8).
 */
export function claimCte(claim: ClaimValues, gate: Sql = sql`true`): Sql {
  const { scope } = claim;
  return sql`claim AS (
             INSERT INTO idempotency_records AS r
               (id, api_key_id, method, path, key, fingerprint, status, locked_until, expires_at)
             SELECT ${claim.recordId}::uuid, ${scope.apiKeyId}::uuid, ${scope.method}::text, ${scope.path}::text,
                    ${scope.key}::text, ${claim.fingerprint}::text, 'running',
                    now() + make_interval(secs => ${claim.leaseSeconds}::int),
                    now() + make_interval(hours => ${claim.retentionHours}::int)
              WHERE ${gate}
             ON CONFLICT (api_key_id, method, path, key) DO UPDATE
               SET id = EXCLUDED.id, fingerprint = EXCLUDED.fingerprint, status = 'running',
                   locked_until = EXCLUDED.locked_until, expires_at = EXCLUDED.expires_at,
                   response_status = NULL, response_body = NULL, response_events = NULL, delivered_at = NULL, created_at = now()
               WHERE (r.status = 'running' AND r.locked_until < now() AND r.delivered_at IS NULL) OR r.expires_at < now()
             RETURNING id
           )`;
}

/**
 * CTE `existing`: the key's live record as the statement began (one a claim cannot take over), if
 * any; `replayable` when its stored answer is given again: a completed call's, or a delivered
 * stream's whose request died (past its lease, the answer stored when its delivery began).
 */
export function existingCte(scope: IdempotencyScope): Sql {
  return sql`existing AS (
             SELECT fingerprint, status, response_status, response_body, response_events,
                    (status = 'completed' OR (delivered_at IS NOT NULL AND locked_until < now())) AS replayable
               FROM idempotency_records
              WHERE api_key_id = ${scope.apiKeyId}::uuid AND method = ${scope.method}::text
                AND path = ${scope.path}::text AND key = ${scope.key}::text
                AND NOT (status = 'running' AND locked_until < now() AND delivered_at IS NULL) AND expires_at >= now()
           )`;
}

/** What a statement with `claim` and `existing` selects about them (`existing` joined as `e`). */
export const CLAIM_OUTCOME_COLUMNS = sql`(SELECT id FROM claim) AS record_id, e.fingerprint, e.status AS existing_status,
                  e.response_status, e.response_body, e.response_events, e.replayable`;

export interface ClaimOutcome {
  record_id: string | null;
  fingerprint: string | null;
  existing_status: 'running' | 'completed' | null;
  response_status: number | null;
  response_body: string | null;
  response_events: string | null;
  replayable: boolean | null;
}
