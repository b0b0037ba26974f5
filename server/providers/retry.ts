import { failureKindOf, isRetryable, retryAfterMsOf } from './failure';

// The gate's own bounded retry of one provider call (text and code, which call the SDK model's
// doGenerate directly): up to `maxRetries` more attempts after a failure one more attempt may
// cure (408, 409, 429, 5xx, no answer at all; see isRetryable), waiting an exponential backoff
// with jitter, or the provider's Retry-After when it names one (one longer than the backoff only
// while no later engine of the request's list could answer at once instead). No wait reaches past the
// request's deadline: a wait that would is not begun, and the failure goes to the caller at once,
// which leaves the rest of the request's time to the next engine of the list.

export interface RetryOptions {
  /** More attempts after the first (PROVIDER_MAX_RETRIES). */
  maxRetries: number;
  /** The request's signal: once it fired, nothing more is tried. */
  signal?: AbortSignal;
  /** When the request's deadline fires (epoch ms); undefined: unknown, waits are bounded by MAX_WAIT_MS. */
  deadline?: number;
  /**
   * A later engine of the request's list remains: an attempt that timed out, or one whose provider
   * asked for a longer wait (Retry-After) than the backoff, is not retried; the next engine is
   * called at once. A hanging provider retried would spend the request's time (PROVIDER_TIMEOUT_MS
   * an attempt) that the fallback needs, and one that names a long wait says it is busy for that long.
   */
  laterEngine?: boolean;
}

export interface RetryClock {
  now(): number;
  /** Waits ms; rejects (or resolves early) when the signal fires. */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
  /** A number in [0, 1) for the jitter. */
  random(): number;
}

/** The first backoff; each further one doubles, up to BACKOFF_MAX_MS. */
export const BACKOFF_BASE_MS = 500;
export const BACKOFF_MAX_MS = 8_000;
/** The longest Retry-After honoured when the deadline is unknown. */
export const MAX_WAIT_MS = 60_000;

const realClock: RetryClock = {
  now: () => Date.now(),
  random: () => Math.random(),
  sleep: (ms, signal) =>
    new Promise<void>((resolve) => {
      if (signal?.aborted) return resolve();
      const timer = setTimeout(done, ms);
      function done() {
        clearTimeout(timer);
        signal?.removeEventListener('abort', done);
        resolve();
      }
      signal?.addEventListener('abort', done, { once: true });
    }),
};

/** The backoff before retry number `retry` (0 for the first): 2^retry × base, less up to a quarter at random. */
export function backoffMs(retry: number, random: number): number {
  const full = Math.min(BACKOFF_BASE_MS * 2 ** retry, BACKOFF_MAX_MS);
  return Math.round(full * (1 - 0.25 * random));
}

/**
 * How long to wait before the next attempt after `error` (retry number `retry`), or undefined when
 * there is to be none: not retryable, the provider's Retry-After past the deadline (or past
 * MAX_WAIT_MS without one), or the backoff itself not ending before the deadline.
 */
export function nextWaitMs(error: unknown, retry: number, options: RetryOptions, clock: RetryClock): number | undefined {
  if (retry >= options.maxRetries || options.signal?.aborted || !isRetryable(error)) return undefined;
  if (options.laterEngine && failureKindOf(error) === 'timeout') return undefined;
  const now = clock.now();
  const asked = retryAfterMsOf(error, now);
  const backoff = backoffMs(retry, clock.random());
  if (options.laterEngine && asked !== undefined && asked > backoff) return undefined;
  const wait = asked ?? backoff;
  if (options.deadline !== undefined ? now + wait >= options.deadline : wait > MAX_WAIT_MS) return undefined;
  return wait;
}

export async function withRetries<T>(attempt: () => Promise<T>, options: RetryOptions, clock: RetryClock = realClock): Promise<T> {
  for (let retry = 0; ; retry++) {
    try {
      return await attempt();
    } catch (error) {
      const wait = nextWaitMs(error, retry, options, clock);
      if (wait === undefined) throw error;
      await clock.sleep(wait, options.signal);
      if (options.signal?.aborted) throw error;
    }
  }
}
