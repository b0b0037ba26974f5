import { randomUUID } from 'node:crypto';
import type { SqlDb } from '../../db/client';
import { isApiError } from '../errors';
import type { EngineReport } from './engine-report';
import { queueRelease, writeRelease, type PendingRelease } from './pending-releases';
import type { Reservation } from './reservation';
import { usageRecord } from './settle-request';

// Billing, the failure: the held units go back, the key is freed for a retry (CONTRACT.md §4:
// any error leaves the key free) and, when the operation itself failed, the failed attempt is
// recorded (0 units). A release the database could not take is queued and written when it can.

/**
 * Why a paid operation ended without a result; `code` names it when it was no ApiError (a client
 * that went away); `engines` is what its engine call learned, if it reached one.
 */
export interface AbandonFailure {
  error: unknown;
  code?: string;
  engines?: EngineReport;
}

/**
 * Abandons a reservation (the open reservation, reserve.ts, calls it once). When a paid operation
 * failed (`failure` and a hold), a release that could not be written is rethrown after queueing, so
 * the request answers with the database's 503; otherwise (clean-up after any other error) nothing is thrown.
 */
export async function abandonRequest(db: SqlDb, reservation: Reservation, failure?: AbandonFailure): Promise<void> {
  const release = releaseOf(reservation, failure);
  try {
    await writeRelease(db, release);
  } catch (error) {
    queueRelease(db, release);
    if (failure && reservation.hold) throw error;
  }
}

function releaseOf(reservation: Reservation, failure: AbandonFailure | undefined): PendingRelease {
  const { hold, recordId, request } = reservation;
  if (!hold) return { recordId };
  if (!failure || !request.charge) return { recordId, holdId: hold.holdId };
  const errorCode = failure.code ?? (isApiError(failure.error) ? failure.error.code : 'internal_error');
  return { recordId, holdId: hold.holdId, failure: { ...usageRecord(reservation, randomUUID(), failure.engines), errorCode } };
}
