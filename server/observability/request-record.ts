import { isStoreUnavailable } from '../db/store-unavailable';

// What a /v1 request learns on its way (its key, then what it holds, and the error it is answered
// with), in a record the surface's app makes for each request and hands the route's handler as a
// parameter, so that the answer can be counted, measured and logged once it is made.

export interface RequestRecord {
  keyId?: string;
  keyPrefix?: string;
  packageSlug?: string;
  operation?: string;
  engine?: string;
  units?: number;
  /** Units were held: from here on a failure is the engine's, recorded as a usage event. */
  held?: boolean;
  /** A streamed answer was charged (its `done`, or `output_interrupted` after a delta, is being written). */
  streamCharged?: boolean;
  /** A streamed answer's settling (charged or released), which its line waits for: the client may go first. */
  streamSettled?: Promise<unknown>;
  /** The error code of an error answer (the envelope's `code`). */
  errorCode?: string;
  /** The answer was a 503 because the database or Redis was away, not a provider (the code is the same). */
  storeAway?: boolean;
  /** The client left before any output reached it: nothing was charged, and the answer made reached nobody. */
  clientGone?: boolean;
}

/** The error a request is answered with: its code, and whether the database or Redis being away caused it. */
export function noteError(record: RequestRecord, error: { code: string; cause?: unknown }): void {
  record.errorCode = error.code;
  if (isStoreUnavailable(error.cause)) record.storeAway = true;
}

/** Step 1 passed: the request is the key's (its prefix is the public part of the secret). */
export function noteKey(record: RequestRecord, key: { keyId: string; keyPrefix: string; packageSlug: string }): void {
  Object.assign(record, key);
}

/** The units are held and the engine is about to run. */
export function noteHeld(record: RequestRecord, charge: { operation: string; units: number; engine: string } | undefined): void {
  record.held = Boolean(charge);
  if (charge) {
    record.operation = charge.operation;
    record.engine = charge.engine;
    record.units = charge.units;
  }
}

/** The engine that answered (or was tried last), once the run is over: fallbacks may change it. */
export function noteEngine(record: RequestRecord, engine: string): void {
  record.engine = engine;
}
