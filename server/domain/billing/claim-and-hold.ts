import type { SqlDb } from '../../db/client';
import { isApiError, type ApiError } from '../errors';
import type { HoldOutcome } from './hold-sql';
import { returnTakenOverHolds } from './sweep-expired-holds';
import { claimIdempotencyKey, judgeExisting, type ClaimResult } from './idempotency-store';
import { queueRelease, writeRelease } from './pending-releases';
import { claimValuesOf, type ClaimOutcome, type IdempotencyScope } from './claim-sql';
import { claimAndHoldStatement, type ClaimAndHoldRow } from './reserve-statements';
import { holdRefusal, holdUnits, holdValuesOf, type Hold, type HoldRequest } from './unit-holds';

// A paid request's idempotency claim and unit hold in one statement (one round trip), when its
// rate point was taken before (by Redis, or by a statement that could not claim): the hold is taken
// only when the claim was, and the record that kept the key is read in the same statement, so the
// common outcomes (held, replay, 409, 422, 402) need nothing more. A refused hold frees the key
// again and throws (402, 429 concurrency, 401), as do 409 and 422.

export type ClaimAndHoldResult = { kind: 'held'; recordId: string; hold: Hold } | Extract<ClaimResult, { kind: 'replay' }>;

export async function claimAndHold(
  db: SqlDb,
  scope: IdempotencyScope,
  fingerprint: string,
  request: Omit<HoldRequest, 'apiKeyId'>,
): Promise<ClaimAndHoldResult> {
  const hold = holdValuesOf({ ...request, apiKeyId: scope.apiKeyId });
  const { rows } = await db.provisional.query<ClaimAndHoldRow>(claimAndHoldStatement({ claim: claimValuesOf(scope, fingerprint), hold }));
  const row = rows[0]!;
  if (row.record_id && row.remaining !== null) {
    return { kind: 'held', recordId: row.record_id, hold: { holdId: hold.holdId, remainingUnits: row.remaining } };
  }
  if (row.record_id) return afterRefusedHold(db, row, row.record_id, scope, request);
  const replay = judgeRow(row, fingerprint);
  if (replay) return replay;
  // The record that kept the key was written after this statement's snapshot was taken (or
  // freed since): the two-step claim settles it, then the hold follows.
  const claim = await claimIdempotencyKey(db, scope, fingerprint);
  return claim.kind === 'replay' ? claim : holdForClaim(db, claim.recordId, scope, request);
}

/** The live record a statement found for the key: a replay, or throws 409 / 422; undefined when none. */
export function judgeRow(row: ClaimOutcome, fingerprint: string): Extract<ClaimResult, { kind: 'replay' }> | undefined {
  if (row.fingerprint === null || row.existing_status === null) return undefined;
  const { response_status, response_body, response_events } = row;
  const existing = { status: row.existing_status, response_status, response_body, response_events, replayable: row.replayable === true };
  return judgeExisting({ fingerprint: row.fingerprint, ...existing }, fingerprint);
}

/**
 * The key was claimed but the hold refused: the refusal judged on the key's row as the statement
 * began frees the key and is thrown; none means the row changed meanwhile, so hold again on its
 * own. A refusal while the key had calls in flight may be a dead request's doing (holdForClaim).
 */
export async function afterRefusedHold(
  db: SqlDb,
  row: HoldOutcome,
  recordId: string,
  scope: IdempotencyScope,
  request: Omit<HoldRequest, 'apiKeyId'>,
): Promise<ClaimAndHoldResult> {
  const refusal = holdRefusal(row, request.units, request.concurrency, request.budget);
  if (refusal && !row.current_in_flight) {
    await freeKey(db, recordId);
    throw refusal;
  }
  return holdForClaim(db, recordId, scope, request, refusal);
}

/** How many times a refused hold returns the key's taken-over holds and tries again. */
const TAKEOVER_ROUNDS = 3;

/**
 * The hold on its own, for a key this request has claimed (after `refusal`, when one was judged
 * already); a refused hold frees the key again and is thrown. A refusal for units, a slot or the
 * budget may be a dead request's doing: one whose key a retry took over (this request, or another)
 * still holds them until its lease runs out. Such holds are returned at once (CONTRACT.md §2: a
 * 402 is final) and the hold tried again, a few rounds: a retry racing this one may take what this
 * one returned before its own dead request's hold is known dead.
 */
async function holdForClaim(
  db: SqlDb,
  recordId: string,
  scope: IdempotencyScope,
  request: Omit<HoldRequest, 'apiKeyId'>,
  refusal?: ApiError,
): Promise<ClaimAndHoldResult> {
  const hold = async (): Promise<ClaimAndHoldResult | ApiError> => {
    try {
      return { kind: 'held', recordId, hold: await holdUnits(db, { ...request, apiKeyId: scope.apiKeyId }, recordId) };
    } catch (error) {
      if (isApiError(error)) return error;
      await freeKey(db, recordId);
      throw error;
    }
  };
  let outcome = refusal ?? (await hold());
  for (let round = 0; round < TAKEOVER_ROUNDS && isApiError(outcome); round++) {
    if (!(await freedByTakenOverHolds(db, outcome, scope.apiKeyId, request))) break;
    outcome = await hold();
  }
  if (!isApiError(outcome)) return outcome;
  await freeKey(db, recordId);
  throw outcome;
}

/**
 * Returns the key's holds whose records were taken over; true when the hold may be tried again:
 * some were returned, or the key's row no longer refuses (a retry racing this one returned them
 * first). A database that cannot return them now leaves them to the sweeper, and the refusal stands.
 */
async function freedByTakenOverHolds(
  db: SqlDb,
  refusal: ApiError,
  apiKeyId: string,
  request: Omit<HoldRequest, 'apiKeyId'>,
): Promise<boolean> {
  if (refusal.code === 'invalid_api_key') return false;
  const returned = await returnTakenOverHolds(db, apiKeyId).catch(() => undefined);
  if (!returned) return false;
  return returned.settled > 0 || !holdRefusal(returned.key, request.units, request.concurrency, request.budget);
}

/**
 * Frees the key this request claimed (CONTRACT.md §4: any error leaves the key free). A release the
 * database cannot take now is queued and written before this process's next claim (pending-releases.ts),
 * and the request still answers with its own refusal: with the release lost, a retry met 409 until the lease ran out.
 */
async function freeKey(db: SqlDb, recordId: string): Promise<void> {
  await writeRelease(db, { recordId }).catch(() => queueRelease(db, { recordId }));
}
