import type { SurfaceName } from '../../contract/values';
import type { AuthenticatedKey } from '../keys/authenticate-key';
import type { Operation } from '../operations';
import { engineNamesOf } from '../engine-names';
import type { IdempotencyScope } from './claim-sql';
import type { RateState } from '../rate-limit/request-rate';
import type { Hold } from './unit-holds';

// What a paid or idempotent request holds between reserve (reserve.ts, through reserve-request.ts)
// and its end, which only the open reservation's settle or abandon (reserve.ts) writes.

export interface Charge {
  operation: Operation;
  units: number;
  /** The package's engine setting: one name or its ordered fallbacks. */
  engine: string | readonly string[];
  /** The upload the call consumes (input_upload_id), recorded on its usage event. */
  inputUploadId?: string;
  /** A job's expected provider cost (decimal string), counted by the key's budget while held. */
  expectedCost?: string | null;
}

/** The engine a charge names first (the one tried first). */
export function firstEngine(charge: Charge): string {
  return engineNamesOf(charge.engine)[0]!;
}

export interface BillingRequest {
  key: Pick<AuthenticatedKey, 'id' | 'requestsPerMinute' | 'concurrency' | 'packageVersionId'> &
    Partial<Pick<AuthenticatedKey, 'maxProviderCostPerDay'>>;
  requestId: string;
  scope: IdempotencyScope;
  fingerprint: string;
  /** The units to hold; requests that charge nothing omit it. */
  charge?: Charge;
  /** The surface the call came through, recorded on its hold and usage event; `v1` when omitted. */
  surface?: SurfaceName;
  /** The body a surface stores for a generation's replays instead of the Generation result itself. */
  render?: RenderGeneration;
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

/** The reservation's state as reserve-request.ts took it. */
export interface Reservation {
  request: BillingRequest;
  rate: RateState;
  /** The claimed idempotency record; its id is this request's lease token. */
  recordId: string;
  hold?: Hold & { units: number };
  startedAt: number;
}

/**
 * A stored answer given again; `events`, for a streamed call charged without `done`, is what a
 * streamed replay writes (its deltas and its terminal event), `body` what a JSON one answers.
 */
export type Replay = { kind: 'replay'; status: number; body: string; events?: string };
