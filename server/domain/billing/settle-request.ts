import type { SqlDb } from '../../db/client';
import { ApiError } from '../errors';
import type { EngineReport } from './engine-report';
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

/**
 * The Generation result (HTTP 200) of a charged request: its usage event's id, its output and its
 * units; as its surface renders it when the request says how (BillingRequest.render).
 */
export function generationBody(reservation: Reservation, usageEventId: string, output: unknown): string {
  const { hold, request } = reservation;
  if (!hold || !request.charge) throw new Error('a generation route must charge');
  const render = request.render ?? JSON.stringify;
  return render({
    id: usageEventId,
    object: 'generation',
    operation: request.charge.operation,
    output,
    usage: { charged_units: request.charge.units, remaining_units: hold.remainingUnits },
  });
}

/** A generation's capture: the usage event's id, what the engine call learned, and how it ended. */
export interface GenerationCapture {
  usageEventId: string;
  output: unknown;
  engines: EngineReport;
  /** The usage event's error_code of a call charged without `done` reaching its client (unit-holds.ts UsageRecord.note). */
  note?: string;
  /** A streamed call charged without `done`: the events a streamed replay writes. */
  events?: string;
}

/** Captures a generation's units; returns the 200 body it stored. */
export async function settleGeneration(db: SqlDb, reservation: Reservation, capture: GenerationCapture): Promise<string> {
  const { usageEventId, output, engines, note, events } = capture;
  const body = generationBody(reservation, usageEventId, output);
  const idempotency = { recordId: reservation.recordId, status: 200, body, events };
  const hold = { holdId: reservation.hold!.holdId, apiKeyId: reservation.request.key.id };
  if (!(await captureHold(db, hold, { ...usageRecord(reservation, usageEventId, engines), note }, idempotency))) {
    // The hold is no longer held (it outlived its lease and the sweeper settled it: returned it, or
    // captured a delivered stream's), or a retry took the key over after the lease and charges
    // itself. Nothing is charged here and this result is not given; a held hold is released.
    throw new ApiError('provider_unavailable', { retryAfter: 1 });
  }
  return body;
}

/** Stores any other success for replay, unless the operation already stored it in its own transaction. */
export async function settleResource(db: SqlDb, reservation: Reservation, status: number, body: string, stored: boolean): Promise<void> {
  if (!stored) await completeIdempotencyKey(db, reservation.recordId, status, body);
}
