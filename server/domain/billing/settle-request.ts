import { randomUUID } from 'node:crypto';
import type { SqlDb } from '../../db/client';
import { ApiError } from '../errors';
import type { EngineReport } from '../generation/call-engine';
import { completeIdempotencyKey } from './idempotency-store';
import { captureHold, type UsageRecord } from './unit-holds';
import { meteringJson } from './provider-cost';
import { firstEngine, type Charge, type Reservation } from './reservation';

// Billing, the success: a generation's hold is captured with its usage event and stored 200 in
// one statement; any other success stores its response for replay. Called through the open
// reservation (reserve.ts), which makes sure a reservation ends once.

/** The usage event of a charged request's call; `engines` is what its engine call learned (none: it reached no engine). */
export function usageRecord(reservation: Reservation, usageEventId: string, engines: EngineReport = { tried: [] }): UsageRecord {
  const { request } = reservation;
  return {
    usageEventId,
    packageVersionId: request.key.packageVersionId,
    operation: request.charge!.operation,
    ...usedEngines(request.charge!, engines),
    requestId: request.requestId,
    inputUploadId: request.charge!.inputUploadId ?? null,
    durationMs: Date.now() - reservation.startedAt,
    metering: meteringJson(engines.metering),
  };
}

/** The usage event's engines: the one that answered (else the last tried, else the first named) and all tried. */
export function usedEngines(charge: Charge, engines: EngineReport): { engine: string; enginesTried: string[] } {
  const { tried, answered } = engines;
  return { engine: answered ?? tried.at(-1) ?? firstEngine(charge), enginesTried: tried };
}

/** The Generation result of interface-v1.md §2.1, as a charged call's answer. */
export interface GenerationResult {
  /** The usage event's id. */
  id: string;
  object: 'generation';
  operation: string;
  output: unknown;
  usage: { charged_units: number; remaining_units: number };
}

/** The body stored for replays of a charged generation: the Generation result, or a surface's rendering of it. */
export type RenderGeneration = (result: GenerationResult) => string;

/**
 * Captures a generation's units; returns the 200 body it stored (`render`ed when given). `note` is the
 * usage event's error_code of a charged call (`client_disconnected`: a stream whose client left after its first delta).
 */
export async function settleGeneration(
  db: SqlDb,
  reservation: Reservation,
  output: unknown,
  engines: EngineReport,
  note?: string,
  render: RenderGeneration = JSON.stringify,
): Promise<string> {
  const { hold, request } = reservation;
  if (!hold || !request.charge) throw new Error('a generation route must charge');
  const usageEventId = randomUUID();
  const body = render({
    id: usageEventId,
    object: 'generation',
    operation: request.charge.operation,
    output,
    usage: { charged_units: request.charge.units, remaining_units: hold.remainingUnits },
  });
  const idempotency = { recordId: reservation.recordId, status: 200, body };
  if (!(await captureHold(db, hold.holdId, { ...usageRecord(reservation, usageEventId, engines), note }, idempotency))) {
    // The hold is no longer held: it outlived its lease and the sweeper settled it (returned it, or
    // captured a delivered stream's). Nothing is charged again and this result is not given.
    throw new ApiError('provider_unavailable', { retryAfter: 1 });
  }
  return body;
}

/** Stores any other success for replay, unless the operation already stored it in its own transaction. */
export async function settleResource(db: SqlDb, reservation: Reservation, status: number, body: string, stored: boolean): Promise<void> {
  if (!stored) await completeIdempotencyKey(db, reservation.recordId, status, body);
}
