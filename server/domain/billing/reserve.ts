import { randomUUID } from 'node:crypto';
import type { SqlDb } from '../../db/client';
import type { EngineReport } from '../generation/call-engine';
import type { RateState } from '../rate-limit/request-rate';
import { abandonRequest, type AbandonFailure } from './abandon-request';
import { markDelivered, type Delivery } from './mark-delivered';
import type { BillingRequest, Charge, Replay, Reservation } from './reservation';
import { reserveRequest } from './reserve-request';
import { generationBody, settleGeneration, settleResource, usedEngines } from './settle-request';
import type { Hold } from './unit-holds';

// Billing as the pipeline reads it: reserve → run → settle. `reserve` (CONTRACT.md §3 steps 8 to
// 10) answers a replay or an open reservation, and `settle` and `abandon` are the only ways to
// end that reservation, each at most once. See docs/billing.md.

/** How a successful operation is settled: a generation captures its hold; any other success is stored for replay. */
export type Settlement =
  /**
   * HTTP 200 Generation result; `note` is the usage event's error_code of a call charged without
   * `done` reaching it, `events` what a streamed replay of such a call writes.
   */
  | { kind: 'generation'; output: unknown; engines: EngineReport; note?: string; events?: string }
  /** Any other success; `stored` when the operation stored its response in its own transaction. */
  | { kind: 'resource'; status: number; body: string; stored: boolean };

export interface OpenReservation {
  readonly request: BillingRequest;
  readonly rate: RateState;
  /** The claimed idempotency record; its id is this request's lease token. */
  readonly recordId: string;
  readonly hold?: Hold & { units: number };
  /**
   * A streamed answer's first delta is about to be written: the hold is durably marked delivered
   * first, and the key keeps `answer` (the output known delivered, and the events a streamed replay
   * writes) for a retry should the request never settle.
   */
  markDelivered(delivery: Delivery, answer: { output: unknown; events: string }): Promise<void>;
  /** Ends the reservation with the operation's success; returns the body stored for replays. */
  settle(settlement: Settlement): Promise<string>;
  /** Ends the reservation without a result (nothing once it has ended). */
  abandon(failure?: AbandonFailure): Promise<void>;
}

export type ReserveOutcome = Replay | { kind: 'reserved'; reservation: OpenReservation };

export async function reserve(db: SqlDb, request: BillingRequest): Promise<ReserveOutcome> {
  const reserved = await reserveRequest(db, request);
  return reserved.kind === 'replay' ? reserved : { kind: 'reserved', reservation: openReservation(db, reserved.reservation) };
}

/** The engine a settled or abandoned paid request is logged under. */
export function loggedEngine(charge: Charge, engines: EngineReport | undefined): string {
  return usedEngines(charge, engines ?? { tried: [] }).engine;
}

function openReservation(db: SqlDb, state: Reservation): OpenReservation {
  let ended = false;
  // One usage event per charged request, named by the answer stored at its delivery and at its capture alike.
  const usageEventId = randomUUID();
  const refuseIfEnded = () => {
    if (ended) throw new Error('this reservation has ended already');
  };
  return {
    request: state.request,
    rate: state.rate,
    recordId: state.recordId,
    hold: state.hold,
    async markDelivered(delivery, answer) {
      refuseIfEnded();
      if (!state.hold) throw new Error('only a held reservation is delivered');
      const body = generationBody(state, usageEventId, answer.output);
      await markDelivered(db, state.hold.holdId, delivery, { usageEventId, recordId: state.recordId, body, events: answer.events });
    },
    async settle(settlement) {
      refuseIfEnded();
      let body: string;
      if (settlement.kind === 'generation') {
        body = await settleGeneration(db, state, { ...settlement, usageEventId });
      } else {
        body = settlement.body;
        await settleResource(db, state, settlement.status, body, settlement.stored);
      }
      ended = true; // a settling that threw leaves it open, for abandon
      return body;
    },
    async abandon(failure) {
      if (ended) return;
      ended = true;
      await abandonRequest(db, state, failure);
    },
  };
}
