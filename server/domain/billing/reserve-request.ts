import { getConfig } from '../../config';
import type { SqlDb } from '../../db/client';
import { isRedisUnavailable } from '../../db/redis';
import { ApiError, isApiError } from '../errors';
import { engineNamesOf } from '../engine-names';
import { claimIdempotencyKey, findExisting, judgeExisting } from './idempotency-store';
import { consumeRequest, rateLimitHeaders, rateStateOf, rateWindowOf, refundRequest, type RateState } from '../rate-limit/request-rate';
import { windowsInDatabase } from '../rate-limit/sliding-window';
import { RESERVE_PAID, writeBatched } from './batched-writes';
import { afterRefusedHold, claimAndHold, judgeRow } from './claim-and-hold';
import { claimValuesOf } from './claim-sql';
import { drainBeforeClaim } from './pending-releases';
import type { BillingRequest, Replay, Reservation } from './reservation';
import { rateClaimHoldStatement, type RateClaimHoldRow } from './reserve-statements';
import { holdValuesOf, type Hold, type HoldRequest } from './unit-holds';

// Billing, step one (CONTRACT.md §3 steps 8 to 10): the minute's rate point, the idempotency
// claim and, for a paid operation, the unit hold. With the rate windows in PostgreSQL the three
// are one statement (reserve-statements.ts); with Redis the point is Redis's, then the claim and
// hold are one statement. The policy of which refusals give the point back lives here, not in the
// HTTP pipeline. See docs/billing.md.

export type ReserveResult = Replay | { kind: 'reserved'; reservation: Reservation };

type Claimed = { kind: 'claimed'; rate: RateState; recordId: string; hold?: Hold };

const IDEMPOTENCY_CONFLICTS = new Set(['idempotency_key_in_use', 'idempotency_key_reused']);

export async function reserveRequest(db: SqlDb, request: BillingRequest): Promise<ReserveResult> {
  await drainBeforeClaim(); // nothing to do (and no statement) unless an earlier release failed
  const claim = windowsInDatabase() ? await reserveInOneStatement(db, request) : await reserveAfterRatePoint(db, request);
  if (claim.kind === 'replay') return claim;
  const hold = request.charge && claim.hold ? { ...claim.hold, units: request.charge.units } : undefined;
  return {
    kind: 'reserved',
    reservation: { request, rate: claim.rate, recordId: claim.recordId, hold, startedAt: Date.now() },
  };
}

/**
 * PostgreSQL's windows: the key's live record, the point, the claim and the hold in one statement.
 * A live record answers step 8 with no point taken; a refused point counts and claims nothing.
 */
async function reserveInOneStatement(db: SqlDb, request: BillingRequest): Promise<Replay | Claimed> {
  const { key, scope, fingerprint } = request;
  const holdRequest = holdRequestOf(request);
  const hold = holdRequest && holdValuesOf({ ...holdRequest, apiKeyId: key.id });
  const statement = rateClaimHoldStatement({
    rate: rateWindowOf(key.id, key.requestsPerMinute),
    claim: claimValuesOf(scope, fingerprint),
    hold,
  });
  const row = hold
    ? rowOfBatch(await writeBatched<RateClaimHoldRow>(db.provisional, RESERVE_PAID, { apiKeyId: key.id, statement }))
    : (await db.provisional.query<RateClaimHoldRow>(statement)).rows[0]!;
  if (row.allowed === null) return judgeRow(row, fingerprint) ?? inUse(); // step 8; no point was taken
  if (!row.allowed) return refusedPoint(db, request, row);
  const rate = rateStateOf({ allowed: true, used: row.used!, waitMs: Number(row.wait_ms) }, key.requestsPerMinute);
  // The key's record was written after the statement's snapshot (a racing request with the same
  // key): the point is counted, and the claim on its own decides whether it is given back.
  if (!row.record_id) return claimKey(db, request, rate);
  if (!hold || !holdRequest) return { kind: 'claimed', rate, recordId: row.record_id };
  if (row.remaining != null) {
    return { kind: 'claimed', rate, recordId: row.record_id, hold: { holdId: hold.holdId, remainingUnits: row.remaining } };
  }
  try {
    const held = await afterRefusedHold(db, row, row.record_id, scope, holdRequest);
    return held.kind === 'replay' ? held : { kind: 'claimed', rate, recordId: held.recordId, hold: held.hold };
  } catch (error) {
    throw withRateHeaders(error, rate);
  }
}

/** A row as a batch returns it (jsonb: its bigint and numeric as numbers) in the statement's own types. */
function rowOfBatch(row: RateClaimHoldRow): RateClaimHoldRow {
  const { wait_ms, current_cost_today } = row as { wait_ms: unknown; current_cost_today: unknown };
  return {
    ...row,
    wait_ms: wait_ms == null ? null : String(wait_ms),
    current_cost_today: current_cost_today == null ? null : String(current_cost_today),
  };
}

/** A refused point: step 8 still answers for a record written meanwhile; otherwise the 429. */
async function refusedPoint(db: SqlDb, request: BillingRequest, row: RateClaimHoldRow): Promise<Replay> {
  const existing = await findExisting(db, request.scope);
  if (existing) return judgeExisting(existing, request.fingerprint);
  throw rateStateOf({ allowed: false, used: row.used ?? 0, waitMs: Number(row.wait_ms) }, request.key.requestsPerMinute);
}

function inUse(): never {
  throw new ApiError('idempotency_key_in_use', { retryAfter: 1 });
}

/** Redis's windows: the point first, then the claim (and hold). */
async function reserveAfterRatePoint(db: SqlDb, request: BillingRequest): Promise<Replay | Claimed> {
  const counted = await takeRatePoint(db, request);
  if (counted.kind === 'replay') return counted;
  return claimKey(db, request, counted.rate);
}

/**
 * Step 9's point is taken before step 8's claim (they share round trips) and given back when the
 * key turns out to be another request's, so those answer as if step 9 never ran; a request
 * rate-limited, or whose point Redis could not take, whose key has a record still gets step 8's
 * answer (a replay, 409 or 422).
 */
async function takeRatePoint(db: SqlDb, request: BillingRequest): Promise<Replay | { kind: 'counted'; rate: RateState }> {
  const { key } = request;
  try {
    return { kind: 'counted', rate: await consumeRequest(db, key.id, key.requestsPerMinute) };
  } catch (error) {
    const beforeStep8 = (isApiError(error) && error.code === 'rate_limited') || isRedisUnavailable(error);
    const existing = beforeStep8 ? await findExisting(db, request.scope).catch(() => undefined) : undefined;
    if (!existing) throw error;
    // A refused point is not counted, so a burst of retries answered by step 8 (409 while the
    // first runs) does not use up the minute.
    return judgeExisting(existing, request.fingerprint);
  }
}

/** The claim (and hold) after the point was counted; a key that is another request's gives the point back. */
async function claimKey(db: SqlDb, request: BillingRequest, rate: RateState): Promise<Replay | Claimed> {
  const { key } = request;
  const holdRequest = holdRequestOf(request);
  try {
    const claim = holdRequest
      ? await claimAndHold(db, request.scope, request.fingerprint, holdRequest)
      : await claimIdempotencyKey(db, request.scope, request.fingerprint);
    if (claim.kind !== 'replay') return { kind: 'claimed', rate, recordId: claim.recordId, hold: 'hold' in claim ? claim.hold : undefined };
    await refundRequest(db, key.id);
    return claim;
  } catch (error) {
    if (isApiError(error) && IDEMPOTENCY_CONFLICTS.has(error.code)) await refundRequest(db, key.id);
    throw withRateHeaders(error, rate);
  }
}

/**
 * The concurrency limit's 429 and the quota's 402 tell the minute's count too, as the per-minute
 * 429 does. Their point is kept: given back, a key at its concurrency limit could send refused
 * requests (each a few writes) without any per-minute bound. A concurrency 429 that took the
 * minute's last point waits for the minute too: a retry sooner would find it spent.
 */
function withRateHeaders(error: unknown, rate: RateState): unknown {
  if (!isApiError(error) || (error.code !== 'rate_limited' && error.code !== 'quota_exhausted')) return error;
  const minuteSpent = error.code === 'rate_limited' && rate.remaining === 0;
  return error.withHeaders(rateLimitHeaders(rate), minuteSpent ? Math.max(error.retryAfter ?? 1, rate.resetSeconds) : error.retryAfter);
}

/** What a paid request holds; undefined for one that charges nothing. */
function holdRequestOf(request: BillingRequest): Omit<HoldRequest, 'apiKeyId'> | undefined {
  const { key, charge } = request;
  if (!charge) return undefined;
  return {
    units: charge.units,
    operation: charge.operation,
    requestId: request.requestId,
    concurrency: key.concurrency,
    leaseSeconds: getConfig().HOLD_LEASE_SECONDS,
    budget: key.maxProviderCostPerDay ?? null,
    expectedCost: charge.expectedCost ?? null,
    engines: engineNamesOf(charge.engine),
    surface: request.surface,
  };
}
