// What a chaos run saw from the outside, as its clients and fakes recorded it: every call and each
// of its attempts (the bytes that reached the client), every engine call the fake providers
// answered, every payment the fake Stripe took, every fault injected. The checker
// (scripts/chaos/checker/) compares this with the books the database keeps.

export const FAULT_KINDS = [
  'client-gone-before-answer',
  'client-gone-before-delta',
  'client-gone-after-delta',
  'client-gone-mid-upload',
  'provider-error',
  'provider-slow',
  'provider-truncated',
  'provider-timeout',
  'stream-cut',
  'app-killed',
  'worker-killed',
  'postgres-restarted',
  'stripe-duplicate',
  'stripe-out-of-order',
  'webhook-receiver-failed',
  'two-instances',
] as const;
export type FaultKind = (typeof FAULT_KINDS)[number];

export const CALL_KINDS = ['text', 'text-stream', 'code', 'image', 'speech', 'transcribe', 'video', 'top-up', 'purchase'] as const;
export type CallKind = (typeof CALL_KINDS)[number];

/** One HTTP request of a call, as its client saw it. Times in ms since the run began. */
export interface Attempt {
  startedAt: number;
  endedAt: number;
  /** The instance it was sent to ('a' or 'b'). */
  instance: string;
  /** The status, when the answer's head arrived. */
  status?: number;
  requestId?: string;
  /** Answered with `Idempotent-Replayed: true`. */
  replayed?: boolean;
  /** A JSON answer's whole body. */
  body?: string;
  /** A streamed answer: the text of each `delta` received, in order. */
  deltas?: string[];
  /** How the stream ended: its `done` or `error` event, or cut before either. */
  ending?: 'done' | 'error' | 'cut';
  /** The data of the `done` or `error` event. */
  endingData?: string;
  /** Why the client has no whole answer: a network error, or it hung up on purpose. */
  failure?: string;
}

/** A video job as its client last saw it. */
export interface JobSeen {
  id: string;
  /** The status GET /v1/jobs/{id} last answered. */
  status?: string;
  chargedUnits?: number;
  cancel?: { status: number; body?: string };
}

/** One logical call: a /v1 operation under one Idempotency-Key, however many attempts it took. */
export interface CallRecord {
  /** Its Idempotency-Key (unique in the run). */
  id: string;
  kind: CallKind;
  /** The name of the chaos key it was made with. */
  key: string;
  operation: string;
  units: number;
  /** Whether its operation runs on a fake provider (else on `local`). */
  provider: boolean;
  faults: FaultKind[];
  attempts: Attempt[];
  job?: JobSeen;
}

/** A call the fake providers answered (or cut), with the chaos call it names. */
export interface EngineCallRecord {
  callId?: string;
  /** As a usage event names it: `provider:model`. */
  engine: string;
  at: number;
}

/** A Checkout Session the harness started, and what the fake Stripe did with it. */
export interface PaymentRecord {
  sessionId: string;
  kind: 'key' | 'top-up';
  /** The chaos key a top-up was for, or the name a bought key got. */
  key?: string;
  units: number;
  paid: boolean;
  /** Webhook deliveries of its events: type and the status the product answered (0: no answer). */
  deliveries: { type: string; status: number }[];
}

export interface KeyRecord {
  name: string;
  id: string;
  packageSlug: string;
  /** The units its package version gives at issue. */
  quota: number;
  concurrency: number;
  requestsPerMinute: number;
}

export interface FaultRecord {
  kind: FaultKind;
  at: number;
  /** A kill or restart: when the process served again. */
  until?: number;
  callId?: string;
  detail?: string;
}

/** The extremes a key's row showed while the run sampled it. */
export interface KeySample {
  keyId: string;
  samples: number;
  minRemaining: number;
  maxInFlight: number;
  /** The most remaining_units exceeded total_units by (0 when never). */
  maxAboveTotal: number;
}

export interface History {
  seed: number;
  keys: KeyRecord[];
  calls: CallRecord[];
  engineCalls: EngineCallRecord[];
  payments: PaymentRecord[];
  faults: FaultRecord[];
  samples: KeySample[];
}
