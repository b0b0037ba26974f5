import type { Hold } from '../domain/billing/unit-holds';
import type { EngineCall, EngineReport } from '../domain/generation/call-engine';
import type { AuthenticatedKey } from '../domain/keys/authenticate-key';
import type { RequestRecord } from '../observability/request-record';

// What a route's steps are given and what its operation answers: shared by the pipeline
// (pipeline.ts), the lifecycle that runs and settles it (answer-lifecycle.ts) and the routes.

export interface RouteContext {
  request: Request;
  requestId: string;
  key: AuthenticatedKey;
  params: Record<string, string>;
  /** Origin for URLs handed to the client (PUBLIC_BASE_URL, else the request's own). */
  origin: string;
  /** What the request learns on its way, for its log line and metrics. */
  record: RequestRecord;
}

export interface RunContext extends RouteContext {
  hold?: Hold & { units: number };
  idempotencyRecordId: string;
  /** Aborts before the idempotency lease runs out, so no request outlives its claim. */
  signal: AbortSignal;
}

export type Outcome =
  /** HTTP 200 Generation result; the hold is captured with the usage event, which names what the engine call learned. */
  | { kind: 'generation'; output: unknown; engines: EngineReport }
  /** Any other success body; `settled` when `run` already stored the response itself. */
  | { kind: 'resource'; status: 200 | 201 | 202; body: unknown; settled?: boolean };

/** An engine call's result as the Generation outcome of a route's `run`. */
export function generated(call: EngineCall<unknown>): Extract<Outcome, { kind: 'generation' }> {
  return { kind: 'generation', output: call.value, engines: call.engines };
}
