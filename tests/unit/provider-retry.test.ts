import { APICallError } from 'ai';
import { describe, expect, it } from 'vitest';
import { failureKindOf, isRetryable, retryAfterMsOf, retryAfterSecondsOf } from '@/server/providers/failure';
import { BACKOFF_BASE_MS, backoffMs, MAX_WAIT_MS, withRetries, type RetryClock } from '@/server/providers/retry';

// The gate's retry of a text or code call, with an injected clock: how many attempts, which
// failures are tried again, and how Retry-After meets the request's deadline. No real waiting.

const httpError = (statusCode: number, responseHeaders: Record<string, string> = {}) =>
  new APICallError({
    message: `HTTP ${statusCode}`,
    url: 'http://127.0.0.1:9/v1/chat/completions',
    requestBodyValues: {},
    statusCode,
    responseHeaders,
  });
const connectionError = () =>
  new APICallError({ message: 'fetch failed', url: 'http://127.0.0.1:9/v1', requestBodyValues: {}, isRetryable: true });
const attemptTimeout = () => new DOMException('The operation timed out.', 'TimeoutError');

/** A clock that moves only when slept on; records each wait. */
function fakeClock(start = 1_000_000): RetryClock & { waits: number[] } {
  let now = start;
  const waits: number[] = [];
  return {
    waits,
    now: () => now,
    random: () => 0.5,
    sleep: async (ms) => {
      waits.push(ms);
      now += ms;
    },
  };
}

/** An attempt that fails with each of `failures` in turn, then answers 'ok'. */
function flaky(failures: unknown[]) {
  let calls = 0;
  const attempt = async () => {
    const failure = failures[calls++];
    if (failure !== undefined) throw failure;
    return 'ok';
  };
  return { attempt, calls: () => calls };
}

describe('withRetries', () => {
  it.each([408, 409, 429, 500, 502, 503])('HTTP %i is tried again, up to maxRetries more attempts', async (status) => {
    const clock = fakeClock();
    const { attempt, calls } = flaky([httpError(status), httpError(status), httpError(status)]);
    await expect(withRetries(attempt, { maxRetries: 2 }, clock)).rejects.toMatchObject({ statusCode: status });
    expect(calls()).toBe(3);
    expect(clock.waits).toHaveLength(2);
  });

  it('succeeds on a later attempt, after exponential backoff with jitter', async () => {
    const clock = fakeClock();
    const { attempt, calls } = flaky([httpError(503), connectionError(), attemptTimeout()]);
    expect(await withRetries(attempt, { maxRetries: 3 }, clock)).toBe('ok');
    expect(calls()).toBe(4);
    expect(clock.waits).toEqual([backoffMs(0, 0.5), backoffMs(1, 0.5), backoffMs(2, 0.5)]);
    expect([backoffMs(1, 0), backoffMs(2, 0), backoffMs(10, 0)]).toEqual([2 * BACKOFF_BASE_MS, 4 * BACKOFF_BASE_MS, 8_000]);
    expect(backoffMs(0, 0)).toBe(BACKOFF_BASE_MS);
    expect(backoffMs(0, 0.999)).toBeGreaterThanOrEqual(BACKOFF_BASE_MS * 0.75);
  });

  it.each([400, 401, 403, 404, 413, 422])('HTTP %i is not tried again', async (status) => {
    const clock = fakeClock();
    const { attempt, calls } = flaky([httpError(status)]);
    await expect(withRetries(attempt, { maxRetries: 3 }, clock)).rejects.toBeInstanceOf(APICallError);
    expect(calls()).toBe(1);
    expect(clock.waits).toEqual([]);
  });

  it('with a later engine in the list, a timed-out attempt is left to it at once; other failures are still tried again', async () => {
    const hang = flaky([attemptTimeout(), attemptTimeout()]);
    await expect(withRetries(hang.attempt, { maxRetries: 2, laterEngine: true }, fakeClock())).rejects.toBeInstanceOf(DOMException);
    expect(hang.calls()).toBe(1);
    const busy = flaky([httpError(503), connectionError()]);
    expect(await withRetries(busy.attempt, { maxRetries: 2, laterEngine: true }, fakeClock())).toBe('ok');
    expect(busy.calls()).toBe(3);
    // The last (or only) engine of a list still tries a timed-out call again.
    const sole = flaky([attemptTimeout(), attemptTimeout()]);
    expect(await withRetries(sole.attempt, { maxRetries: 2 }, fakeClock())).toBe('ok');
    expect(sole.calls()).toBe(3);
  });

  it("with a later engine in the list, a provider's Retry-After longer than the backoff is not waited: the next engine answers at once", async () => {
    const clock = fakeClock();
    const asked = flaky([httpError(429, { 'retry-after': '3' })]);
    await expect(withRetries(asked.attempt, { maxRetries: 2, laterEngine: true }, clock)).rejects.toMatchObject({ statusCode: 429 });
    expect(asked.calls()).toBe(1);
    expect(clock.waits).toEqual([]);
    // A shorter one is waited, and a 429 naming no wait is tried again after the backoff, as a 5xx is.
    const short = flaky([httpError(503, { 'retry-after-ms': '40' }), httpError(429)]);
    expect(await withRetries(short.attempt, { maxRetries: 2, laterEngine: true }, clock)).toBe('ok');
    expect(clock.waits).toEqual([40, backoffMs(1, 0.5)]);
  });

  it('a malformed answer is not tried again; maxRetries 0 means one attempt', async () => {
    const malformed = Object.assign(new Error('bad'), { name: 'AI_JSONParseError' });
    const first = flaky([malformed]);
    await expect(withRetries(first.attempt, { maxRetries: 3 }, fakeClock())).rejects.toBe(malformed);
    expect(first.calls()).toBe(1);
    const second = flaky([httpError(503)]);
    await expect(withRetries(second.attempt, { maxRetries: 0 }, fakeClock())).rejects.toBeInstanceOf(APICallError);
    expect(second.calls()).toBe(1);
  });

  it("honours the provider's Retry-After when it fits the deadline", async () => {
    const clock = fakeClock();
    const { attempt, calls } = flaky([httpError(429, { 'retry-after': '3' }), httpError(503, { 'retry-after-ms': '40' })]);
    expect(await withRetries(attempt, { maxRetries: 2, deadline: clock.now() + 10_000 }, clock)).toBe('ok');
    expect(calls()).toBe(3);
    expect(clock.waits).toEqual([3_000, 40]);
  });

  it('a Retry-After past the deadline is not waited for: the failure goes to the caller at once', async () => {
    const clock = fakeClock();
    const { attempt, calls } = flaky([httpError(429, { 'retry-after': '30' })]);
    await expect(withRetries(attempt, { maxRetries: 2, deadline: clock.now() + 10_000 }, clock)).rejects.toBeInstanceOf(APICallError);
    expect(calls()).toBe(1);
    expect(clock.waits).toEqual([]);
  });

  it('a backoff that would end at or past the deadline is not begun either', async () => {
    const clock = fakeClock();
    const { attempt, calls } = flaky([httpError(503), httpError(503)]);
    const deadline = clock.now() + backoffMs(0, 0.5) + 10; // room for the first backoff only
    await expect(withRetries(attempt, { maxRetries: 5, deadline }, clock)).rejects.toBeInstanceOf(APICallError);
    expect(calls()).toBe(2);
    expect(clock.waits).toEqual([backoffMs(0, 0.5)]);
  });

  it('without a known deadline, a Retry-After over MAX_WAIT_MS is not waited for', async () => {
    const clock = fakeClock();
    const seconds = String(MAX_WAIT_MS / 1000 + 1);
    const { attempt, calls } = flaky([httpError(503, { 'retry-after': seconds })]);
    await expect(withRetries(attempt, { maxRetries: 2 }, clock)).rejects.toBeInstanceOf(APICallError);
    expect(calls()).toBe(1);
  });

  it('once the request signal fired, nothing more is tried', async () => {
    const controller = new AbortController();
    const clock = fakeClock();
    clock.sleep = async () => controller.abort();
    const { attempt, calls } = flaky([httpError(503), httpError(503)]);
    await expect(withRetries(attempt, { maxRetries: 3, signal: controller.signal }, clock)).rejects.toBeInstanceOf(APICallError);
    expect(calls()).toBe(1);
  });
});

describe('the one failure classifier, for every provider type', () => {
  it('sorts statuses: the operator-side refusals fall back, the input refusals end the chain', () => {
    const kinds = Object.fromEntries([400, 401, 403, 404, 408, 409, 413, 422, 429, 500, 503].map((s) => [s, failureKindOf(httpError(s))]));
    expect(kinds).toEqual({
      400: 'rejected',
      401: 'not_configured',
      403: 'not_configured',
      404: 'not_configured',
      408: 'timeout',
      409: 'server_error',
      413: 'rejected',
      422: 'rejected',
      429: 'rate_limited',
      500: 'server_error',
      503: 'server_error',
    });
  });

  it('sorts calls without an answer and answers that cannot be read', () => {
    expect(failureKindOf(attemptTimeout())).toBe('timeout');
    expect(failureKindOf(connectionError())).toBe('connection');
    expect(failureKindOf(new TypeError('fetch failed'))).toBe('connection');
    expect(failureKindOf(Object.assign(new Error('x'), { name: 'AI_TypeValidationError' }))).toBe('malformed');
    expect(isRetryable(connectionError())).toBe(true);
    expect(isRetryable(httpError(401))).toBe(false);
    // A 200 whose body the connection cut (outside audit: a stream cut before its first piece was not retried).
    const cutOff = new APICallError({
      message: 'Failed to process successful response',
      url: 'http://127.0.0.1:9/v1/chat/completions',
      requestBodyValues: {},
      statusCode: 200,
      cause: new TypeError('terminated', { cause: new Error('other side closed') }),
    });
    expect([failureKindOf(cutOff), isRetryable(cutOff)]).toEqual(['connection', true]);
    expect(failureKindOf(new TypeError('terminated'))).toBe('connection');
    const unreadable = new APICallError({ message: 'Invalid JSON', url: 'http://127.0.0.1:9/v1', requestBodyValues: {}, statusCode: 200 });
    expect([failureKindOf(unreadable), isRetryable(unreadable)]).toEqual(['malformed', false]);
  });

  it('reads Retry-After as seconds, milliseconds or an HTTP date; tells the customer whole seconds', () => {
    const now = Date.parse('2026-01-01T00:00:00Z');
    expect(retryAfterMsOf(httpError(429, { 'retry-after': '2' }), now)).toBe(2_000);
    expect(retryAfterMsOf(httpError(429, { 'retry-after-ms': '150', 'retry-after': '2' }), now)).toBe(150);
    expect(retryAfterMsOf(httpError(429, { 'retry-after': 'Thu, 01 Jan 2026 00:00:07 GMT' }), now)).toBe(7_000);
    expect(retryAfterMsOf(httpError(429, { 'retry-after': 'soon' }), now)).toBeUndefined();
    expect(retryAfterMsOf(httpError(429), now)).toBeUndefined();
    expect(retryAfterSecondsOf(httpError(429, { 'retry-after-ms': '5', 'retry-after': '12' }), now)).toBe(12);
    expect(retryAfterSecondsOf(httpError(429, { 'retry-after': '9999' }), now)).toBe(300);
    expect(retryAfterSecondsOf(httpError(500), now)).toBe(5);
  });
});
