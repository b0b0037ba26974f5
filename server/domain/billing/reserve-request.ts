import { getConfig } from '../../config';
import type { SqlDb } from '../../db/client';
import { isApiError } from '../errors';
import { claimIdempotencyKey, findExisting, judgeExisting } from '../idempotency/idempotency-store';
import { claimAndHold } from './claim-and-hold';
import type { Hold } from './unit-holds';
import type { BillingRequest, Replay, Reservation } from './reservation';
import { consumeRequest, rateLimitHeaders, refundRequest, type RateState } from '../rate-limit/request-rate';
import { drainBeforeClaim } from './pending-releases';

// Billing, step one (CONTRACT.md §3 steps 8 to 10): the minute's rate point, the idempotency
// claim and, for a paid operation, the unit hold. The policy of which refusals give the rate
// point back lives here, not in the HTTP pipeline. See docs/billing.md.

export type ReserveResult = Replay | { kind: 'reserved'; reservation: Reservation };

const IDEMPOTENCY_CONFLICTS = new Set(['idempotency_key_in_use', 'idempotency_key_reused']);

export async function reserveRequest(db: SqlDb, request: BillingRequest): Promise<ReserveResult> {
  await drainBeforeClaim(); // nothing to do (and no statement) unless an earlier release failed
  const counted = await takeRatePoint(db, request);
  if (counted.kind === 'replay') return counted;
  const claim = await claimKey(db, request, counted.rate);
  if (claim.kind === 'replay') return claim;
  const hold = request.charge && claim.hold ? { ...claim.hold, units: request.charge.units } : undefined;
  return {
    kind: 'reserved',
    reservation: { request, rate: counted.rate, recordId: claim.recordId, hold, startedAt: Date.now() },
  };
}

/**
 * Step 9's point is taken before step 8's claim (they share round trips) and given back when the
 * key turns out to be another request's, so those answer as if step 9 never ran; a rate-limited
 * request whose key has a record still gets step 8's answer (a replay, 409 or 422).
 */
async function takeRatePoint(db: SqlDb, request: BillingRequest): Promise<Replay | { kind: 'counted'; rate: RateState }> {
  const { key } = request;
  try {
    return { kind: 'counted', rate: await consumeRequest(db, key.id, key.requestsPerMinute) };
  } catch (error) {
    const existing = isApiError(error) && error.code === 'rate_limited' ? await findExisting(db, request.scope) : undefined;
    if (!existing) throw error;
    // A refused point is not counted, so a burst of retries answered by step 8 (409 while the
    // first runs) does not use up the minute.
    return judgeExisting(existing, request.fingerprint);
  }
}

async function claimKey(
  db: SqlDb,
  request: BillingRequest,
  rate: RateState,
): Promise<Replay | { kind: 'claimed' | 'held'; recordId: string; hold?: Hold }> {
  const { key, charge } = request;
  try {
    const claim = charge
      ? await claimAndHold(db, request.scope, request.fingerprint, {
          units: charge.units,
          operation: charge.operation,
          requestId: request.requestId,
          concurrency: key.concurrency,
          leaseSeconds: getConfig().HOLD_LEASE_SECONDS,
          budget: key.maxProviderCostPerDay ?? null,
          expectedCost: charge.expectedCost ?? null,
        })
      : await claimIdempotencyKey(db, request.scope, request.fingerprint);
    if (claim.kind === 'replay') await refundRequest(db, key.id);
    return claim;
  } catch (error) {
    if (isApiError(error) && IDEMPOTENCY_CONFLICTS.has(error.code)) await refundRequest(db, key.id);
    // The concurrency limit's 429 and the quota's 402 tell the minute's count too, as the
    // per-minute 429 does. Their point is kept: given back, a key at its concurrency limit could
    // send refused requests (each a few writes) without any per-minute bound.
    if (isApiError(error) && (error.code === 'rate_limited' || error.code === 'quota_exhausted')) {
      throw error.withHeaders(rateLimitHeaders(rate));
    }
    throw error;
  }
}
