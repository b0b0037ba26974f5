import { describe, expect, it } from 'vitest';
import type { Books } from '@/scripts/chaos/checker/books';
import { checkBooks } from '@/scripts/chaos/checker';
import { busiestMinute } from '@/scripts/chaos/checker/invariants/limits';
import type { History } from '@/scripts/chaos/history';

// The chaos checker fed fabricated histories and books: a clean run is reported clean, and each
// kind of violation is reported by the invariant that names it (so the checker is known to fail).

const KEY = 'k1111111-0000-0000-0000-000000000000';
const generation = (id: string, text: string, remaining: number) =>
  JSON.stringify({
    id,
    object: 'generation',
    operation: 'text.generate',
    output: { text },
    usage: { charged_units: 1, remaining_units: remaining },
  });

/** A small clean run: a JSON call, a stream replayed as JSON, a stream its client left before any delta, a video job, a top-up. */
function cleanRun(): { history: History; books: Books } {
  const at = { startedAt: 0, endedAt: 10, instance: 'a' };
  const history: History = {
    seed: 1,
    keys: [{ name: 'k1', id: KEY, packageSlug: 'p', quota: 10, concurrency: 2, requestsPerMinute: 60 }],
    calls: [
      {
        id: 'c1',
        kind: 'text',
        key: 'k1',
        operation: 'text.generate',
        units: 1,
        provider: true,
        faults: [],
        attempts: [{ ...at, status: 200, requestId: 'r1', body: generation('u1', 'hi', 9) }],
      },
      {
        id: 'c2',
        kind: 'text-stream',
        key: 'k1',
        operation: 'text.generate',
        units: 1,
        provider: true,
        faults: [],
        attempts: [
          { ...at, status: 200, requestId: 'r2', deltas: ['a', 'b'], ending: 'done', endingData: generation('u2', 'ab', 8) },
          { ...at, status: 200, requestId: 'r2b', replayed: true, body: generation('u2', 'ab', 8) },
        ],
      },
      {
        id: 'c3',
        kind: 'text-stream',
        key: 'k1',
        operation: 'text.generate',
        units: 1,
        provider: true,
        faults: ['client-gone-before-delta'],
        attempts: [{ ...at, status: 200, requestId: 'r3', deltas: [], ending: 'cut', failure: 'client hung up' }],
      },
      {
        id: 'c4',
        kind: 'video',
        key: 'k1',
        operation: 'videos.generate',
        units: 5,
        provider: false,
        faults: [],
        attempts: [{ ...at, status: 202, requestId: 'r4', body: JSON.stringify({ job_id: 'job_1', status: 'submitted' }) }],
        job: { id: 'job_1', status: 'succeeded', chargedUnits: 5 },
      },
    ],
    engineCalls: ['c1', 'c2', 'c3'].map((callId) => ({ callId, engine: 'chat:m', at: 1 })),
    payments: [
      {
        sessionId: 'cs_1',
        kind: 'top-up',
        key: 'k1',
        units: 5,
        paid: true,
        deliveries: [{ type: 'checkout.session.completed', status: 200 }],
      },
    ],
    faults: [],
    samples: [{ keyId: KEY, samples: 3, minRemaining: 8, maxInFlight: 2, maxAboveTotal: 0 }],
  };
  const hold = (id: string, units: number, requestId: string, status: 'captured' | 'released', createdAtMs = 0) => ({
    id,
    keyId: KEY,
    units,
    operation: 'text.generate',
    requestId,
    status,
    delivered: false,
    createdAtMs,
  });
  const usage = (id: string, requestId: string, units: number, engines: string[], jobId: string | null = null) => ({
    holdId: units > 0 ? `h${id.slice(1)}` : null,
    id,
    keyId: KEY,
    operation: jobId ? 'videos.generate' : 'text.generate',
    outcome: (units > 0 ? 'succeeded' : 'failed') as 'succeeded' | 'failed',
    units,
    engine: engines.at(-1)!,
    errorCode: units > 0 ? null : 'client_disconnected',
    requestId,
    jobId,
    enginesTried: engines,
  });
  const books: Books = {
    keys: [{ id: KEY, remaining: 8, total: 15, inFlight: 0, concurrency: 2, requestsPerMinute: 60, purchaseId: null }],
    holds: [
      hold('h1', 1, 'r1', 'captured'),
      hold('h2', 1, 'r2', 'captured'),
      hold('h3', 1, 'r3', 'released'),
      hold('h4', 5, 'r4', 'captured'),
    ],
    usage: [
      usage('u1', 'r1', 1, ['chat:m']),
      usage('u2', 'r2', 1, ['chat:m']),
      usage('u3', 'r3', 0, ['chat:m']),
      usage('u4', 'r4', 5, ['local'], 'job_1'),
    ],
    jobs: [{ id: 'job_1', keyId: KEY, status: 'succeeded', units: 5, requestId: 'r4', holdStatus: 'captured', chargedOnCancel: false }],
    records: [
      { keyId: KEY, key: 'c1', status: 'completed', responseStatus: 200, responseBody: generation('u1', 'hi', 9) },
      { keyId: KEY, key: 'c2', status: 'completed', responseStatus: 200, responseBody: generation('u2', 'ab', 8) },
    ],
    purchases: [{ id: 'p1', kind: 'top_up', status: 'fulfilled', keyId: KEY, units: 5, sessionId: 'cs_1', keysIssued: 0 }],
  };
  return { history, books };
}

/** The invariants that report something, with how many violations each. */
function broken(run: { history: History; books: Books }): Record<string, number> {
  const found: Record<string, number> = {};
  for (const result of checkBooks(run.history, run.books)) if (result.violations.length) found[result.name] = result.violations.length;
  return found;
}

describe('the chaos checker', () => {
  it('reports a clean run clean, having checked every invariant', () => {
    const results = checkBooks(cleanRun().history, cleanRun().books);
    expect(results.map((r) => [r.name, r.violations])).toEqual(results.map((r) => [r.name, []]));
    expect(results.every((r) => r.checked > 0)).toBe(true);
  });

  it('units-conserved: a unit that appears from nowhere', () => {
    const run = cleanRun();
    run.books.keys[0]!.remaining = 9;
    expect(broken(run)).toEqual({ 'units-conserved': 1 });
  });

  it('units-conserved: a captured unit without its usage event', () => {
    const run = cleanRun();
    run.books.usage[0]!.units = 0;
    expect(broken(run)).toMatchObject({ 'units-conserved': 1 });
  });

  it('no-open-hold: a hold left held, a slot left taken', () => {
    const run = cleanRun();
    run.books.holds[2]!.status = 'held' as never;
    run.books.keys[0]!.remaining = 7;
    run.books.keys[0]!.inFlight = 1;
    expect(broken(run)).toEqual({ 'no-open-hold': 2 });
  });

  it('idempotency-key-charged-once: a key charged twice', () => {
    const run = cleanRun();
    run.history.calls[0]!.attempts.push({
      startedAt: 20,
      endedAt: 30,
      instance: 'b',
      status: 200,
      requestId: 'r5',
      body: generation('u5', 'hi', 7),
    });
    run.books.holds.push({ ...run.books.holds[0]!, id: 'h5', requestId: 'r5' });
    run.books.usage.push({ ...run.books.usage[0]!, id: 'u5', requestId: 'r5' });
    run.books.keys[0]!.remaining = 7;
    run.history.samples[0]!.minRemaining = 7;
    // The second answer differs from the first too (another id and balance).
    expect(broken(run)).toMatchObject({ 'idempotency-key-charged-once': 2 });
  });

  it('idempotency-key-charged-once: a replay that differs from the first answer', () => {
    const run = cleanRun();
    run.history.calls[1]!.attempts[1]!.body = generation('u2', 'ab and more', 8);
    expect(broken(run)).toEqual({ 'idempotency-key-charged-once': 1 });
  });

  it('delivered-output-charged-once: a stream ending in error after its deltas, not charged', () => {
    const run = cleanRun();
    const call = run.history.calls[2]!;
    call.attempts[0] = {
      ...call.attempts[0]!,
      deltas: ['x'],
      ending: 'error',
      endingData: JSON.stringify({ error: { code: 'provider_unavailable' } }),
    };
    expect(broken(run)).toEqual({ 'delivered-output-charged-once': 2 });
  });

  /** The clean run with its third call (a stream left before any delta) charged as interrupted. */
  function withThirdCallCharged() {
    const run = cleanRun();
    run.books.holds[2]!.status = 'captured';
    Object.assign(run.books.usage[2]!, { outcome: 'succeeded', units: 1, errorCode: 'stream_interrupted', holdId: 'h3' });
    run.books.keys[0]!.remaining = 7;
    run.history.samples[0]!.minRemaining = 7;
    return run;
  }

  it('delivered-output-charged-once: a stream its client left before any delta, charged', () => {
    const run = withThirdCallCharged();
    expect(broken(run)).toEqual({ 'delivered-output-charged-once': 1 });
  });

  it('delivered-output-charged-once: a stream whose process died after its first delta was marked, charged, and replayed to a retry, is clean', () => {
    const run = withThirdCallCharged();
    const call = run.history.calls[2]!;
    call.attempts[0] = { ...call.attempts[0]!, failure: 'network: answer cut' };
    const interrupted = JSON.stringify({ error: { code: 'output_interrupted', request_id: 'r3' } });
    call.attempts.push({
      ...call.attempts[0]!,
      requestId: 'r3b',
      replayed: true,
      deltas: ['x'],
      ending: 'error',
      endingData: interrupted,
      failure: undefined,
    });
    expect(broken(run)).toEqual({});
    // A replay naming another request does not make this charge received.
    call.attempts[1]!.endingData = JSON.stringify({ error: { code: 'output_interrupted', request_id: 'r9' } });
    expect(broken(run)).toEqual({ 'delivered-output-charged-once': 1 });
  });

  it('delivered-output-charged-once: a charge no client call names', () => {
    const run = cleanRun();
    run.books.holds.push({ ...run.books.holds[0]!, id: 'h9', requestId: 'r9' });
    run.books.usage.push({ ...run.books.usage[0]!, id: 'u9', requestId: 'r9', enginesTried: [] });
    run.books.keys[0]!.remaining = 7;
    run.history.samples[0]!.minRemaining = 7;
    expect(broken(run)).toEqual({ 'delivered-output-charged-once': 1 });
  });

  it('charged-the-price: one call charged over its price and another under, their sums unchanged (chaos audit)', () => {
    const run = cleanRun();
    run.history.calls[0]!.units = 2; // c1 costs 2 but was charged 1 (its answer says 1) ...
    run.history.calls[1]!.units = 0; // ... c2 costs 0 but was charged 1
    expect(broken(run)).toEqual({ 'charged-the-price': 5 });
  });

  it("charged-the-price: a charge without its own captured hold, an answer's charged_units that is not the price", () => {
    const run = cleanRun();
    run.books.usage[0]!.holdId = 'h3'; // a released hold
    run.history.calls[1]!.attempts[1]!.body = JSON.stringify({ ...JSON.parse(generation('u2', 'ab', 8)), usage: { charged_units: 0 } });
    expect(broken(run)).toMatchObject({ 'charged-the-price': 2 });
  });

  it('engine-calls-accounted: a usage event answered by an engine that was never called', () => {
    const run = cleanRun();
    run.history.engineCalls.splice(1, 1);
    expect(broken(run)).toEqual({ 'engine-calls-accounted': 1 });
    // A failed attempt that names an engine its request never reached (a timeout before the call arrived) is no violation.
    const timedOut = cleanRun();
    timedOut.history.engineCalls.splice(2, 1);
    expect(broken(timedOut)).toEqual({});
  });

  it('engine-calls-accounted: an engine call with no usage event', () => {
    const run = cleanRun();
    run.history.engineCalls.push({ callId: 'c1', engine: 'chat:m', at: 5 });
    const results = checkBooks(run.history, run.books);
    expect(broken(run)).toEqual({ 'engine-calls-accounted': 1 });
    expect(results.find((r) => r.name === 'engine-calls-accounted')!.violations[0]!.message).toContain('c1 (2 calls, 1 in usage)');
  });

  it('keys-within-limits: below zero, over concurrency, over the requests per minute', () => {
    const run = cleanRun();
    run.history.samples[0] = { ...run.history.samples[0]!, minRemaining: -1, maxInFlight: 3 };
    run.history.keys[0]!.requestsPerMinute = 3;
    expect(broken(run)).toEqual({ 'keys-within-limits': 3 });
    expect(
      busiestMinute(
        [0, 59_999, 60_000, 61_000].map((createdAtMs) => ({ ...run.books.holds[0]!, createdAtMs })),
        KEY,
      ),
    ).toBe(3);
  });

  it('jobs-charged-by-state: a succeeded job whose units went back, a client told otherwise', () => {
    const run = cleanRun();
    run.books.jobs[0]!.holdStatus = 'released';
    run.history.calls[3]!.job!.status = 'cancelled';
    expect(broken(run)).toEqual({ 'jobs-charged-by-state': 2 });
  });

  it('jobs-charged-by-state: a job left running (its client saw it succeed)', () => {
    const run = cleanRun();
    run.books.jobs[0]!.status = 'running';
    expect(broken(run)).toEqual({ 'jobs-charged-by-state': 2 });
  });

  it('checkout-fulfilled-once: a top-up added twice, a paid checkout never fulfilled', () => {
    const run = cleanRun();
    run.books.keys[0]!.total = 20;
    run.books.keys[0]!.remaining = 13;
    run.history.samples[0]!.minRemaining = 13;
    run.history.payments.push({ sessionId: 'cs_2', kind: 'key', units: 10, paid: true, deliveries: [] });
    run.books.purchases.push({ id: 'p2', kind: 'package', status: 'open', keyId: null, units: 10, sessionId: 'cs_2', keysIssued: 0 });
    expect(broken(run)).toEqual({ 'units-conserved': 1, 'checkout-fulfilled-once': 2 });
  });
});
