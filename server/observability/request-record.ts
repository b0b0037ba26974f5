// What a /v1 request learns on its way (its key, then what it holds), kept beside the Request
// so the edge (routeMethods) can count, measure and log the answer without the pipeline
// passing anything back. A WeakMap: nothing outlives its request.

export interface RequestRecord {
  keyId?: string;
  keyPrefix?: string;
  packageSlug?: string;
  operation?: string;
  engine?: string;
  units?: number;
  /** Units were held: from here on a failure is the engine's, recorded as a usage event. */
  held?: boolean;
}

const records = new WeakMap<Request, RequestRecord>();

export function requestRecord(request: Request): RequestRecord | undefined {
  return records.get(request);
}

/** Step 1 passed: the request is the key's (its prefix is the public part of the secret). */
export function noteKey(request: Request, key: { keyId: string; keyPrefix: string; packageSlug: string }): void {
  records.set(request, { ...key });
}

/** The units are held and the engine is about to run. */
export function noteHeld(request: Request, charge: { operation: string; units: number; engine: string } | undefined): void {
  const record = records.get(request);
  if (!record) return;
  record.held = Boolean(charge);
  if (charge) {
    record.operation = charge.operation;
    record.engine = charge.engine;
    record.units = charge.units;
  }
}

/** The engine that answered (or was tried last), once the run is over: fallbacks may change it. */
export function noteEngine(request: Request, engine: string): void {
  const record = records.get(request);
  if (record) record.engine = engine;
}
