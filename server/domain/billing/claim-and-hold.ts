import { randomUUID } from 'node:crypto';
import type { SqlDb } from '../../db/client';
import {
  CLAIM_CTE,
  claimIdempotencyKey,
  claimValues,
  judgeExisting,
  releaseIdempotencyKey,
  type ClaimResult,
  type IdempotencyScope,
} from '../idempotency/idempotency-store';
import { HOLD_OUTCOME_COLUMNS, holdRefusal, holdUnits, unitHoldCtes, type Hold, type HoldOutcome, type HoldRequest } from './unit-holds';

// A paid request's idempotency claim and unit hold in one statement (one round trip): the
// hold is taken only when the claim was, and the record that kept the key is read in the
// same statement, so the common outcomes (held, replay, 409, 422, 402) need nothing more.
// A refused hold frees the key again and throws (402, 429 concurrency, 401), as do 409 and 422.

export type ClaimAndHoldResult = { kind: 'held'; recordId: string; hold: Hold } | Extract<ClaimResult, { kind: 'replay' }>;

interface Row extends HoldOutcome {
  record_id: string | null;
  fingerprint: string | null;
  existing_status: 'running' | 'completed' | null;
  response_status: number | null;
  response_body: string | null;
}

/** The hold's parameters, $9 to $16 of the statement below, in their order. */
function holdValues(request: Omit<HoldRequest, 'apiKeyId'>, holdId: string): unknown[] {
  const { units, concurrency, operation, requestId, leaseSeconds } = request;
  return [units, concurrency, holdId, operation, requestId, leaseSeconds, request.budget ?? null, request.expectedCost ?? null];
}

export async function claimAndHold(
  db: SqlDb,
  scope: IdempotencyScope,
  fingerprint: string,
  request: Omit<HoldRequest, 'apiKeyId'>,
): Promise<ClaimAndHoldResult> {
  const holdId = randomUUID();
  const { rows } = await db.provisional.query<Row>({
    name: 'wgs-claim-and-hold',
    text: `WITH ${CLAIM_CTE}, existing AS (
             SELECT fingerprint, status, response_status, response_body FROM idempotency_records
              WHERE api_key_id = $2 AND method = $3 AND path = $4 AND key = $5
                AND NOT EXISTS (SELECT 1 FROM claim)
           ), ${unitHoldCtes({
             apiKeyId: '$2::uuid',
             units: '$9::int',
             concurrency: '$10::int',
             holdId: '$11::uuid',
             operation: '$12::text',
             requestId: '$13::text',
             leaseSeconds: '$14::int',
             budget: '$15::numeric',
             expectedCost: '$16::numeric',
             gate: 'EXISTS (SELECT 1 FROM claim)',
           })}
           SELECT (SELECT id FROM claim) AS record_id, ${HOLD_OUTCOME_COLUMNS},
                  e.fingerprint, e.status AS existing_status, e.response_status, e.response_body
             FROM (SELECT 1) AS one LEFT JOIN existing e ON true`,
    values: [...claimValues(scope, fingerprint), ...holdValues(request, holdId)],
  });
  const row = rows[0]!;
  if (row.record_id && row.remaining !== null) {
    return { kind: 'held', recordId: row.record_id, hold: { holdId, remainingUnits: row.remaining } };
  }
  if (row.record_id) {
    const refusal = holdRefusal(row, request.units, request.concurrency, request.budget);
    if (refusal) {
      await releaseIdempotencyKey(db, row.record_id);
      throw refusal;
    }
    // The key's row changed while the statement ran: the claim stands, hold again on its own.
    return holdForClaim(db, row.record_id, scope, request);
  }
  if (row.fingerprint !== null && row.existing_status !== null) {
    return judgeExisting(
      // a replay, or throws 409 / 422
      { fingerprint: row.fingerprint, status: row.existing_status, response_status: row.response_status, response_body: row.response_body },
      fingerprint,
    );
  }
  // The record that kept the key was written after this statement's snapshot was taken (or
  // freed since): the two-step claim settles it, then the hold follows.
  const claim = await claimIdempotencyKey(db, scope, fingerprint);
  return claim.kind === 'replay' ? claim : holdForClaim(db, claim.recordId, scope, request);
}

/** The hold on its own, for a key this request has claimed; a refused hold frees the key again. */
async function holdForClaim(
  db: SqlDb,
  recordId: string,
  scope: IdempotencyScope,
  request: Omit<HoldRequest, 'apiKeyId'>,
): Promise<ClaimAndHoldResult> {
  try {
    return { kind: 'held', recordId, hold: await holdUnits(db, { ...request, apiKeyId: scope.apiKeyId }) };
  } catch (error) {
    await releaseIdempotencyKey(db, recordId);
    throw error;
  }
}
