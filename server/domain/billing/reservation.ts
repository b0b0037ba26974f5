import type { AuthenticatedKey } from '../keys/authenticate-key';
import type { Operation } from '../operations';
import type { EngineTrace } from '../generation/call-engine';
import { engineNamesOf } from '../packages/engine-names';
import type { IdempotencyScope } from '../idempotency/idempotency-store';
import type { RateState } from '../rate-limit/request-rate';
import type { Hold } from './unit-holds';

// What a paid or idempotent request holds between reserve (reserve-request.ts) and its end:
// settle (settle-request.ts) or abandon (abandon-request.ts).

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
}

export interface Reservation {
  request: BillingRequest;
  rate: RateState;
  /** The claimed idempotency record; its id is this request's lease token. */
  recordId: string;
  hold?: Hold & { units: number };
  startedAt: number;
  /** Filled by the engine call: the engines tried and the one that answered, for the usage event. */
  engines: EngineTrace;
  /** Set once the reservation was settled or abandoned, so it is never closed twice. */
  closed?: boolean;
}

export type Replay = { kind: 'replay'; status: number; body: string };
