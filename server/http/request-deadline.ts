import { cuttable } from '../lifecycle/in-flight';
import { markDeadline } from '../providers/engine';

/**
 * The deadline of one request's engine call, cleared when the request ends.
 *
 * Not AbortSignal.timeout: its timer lives for the whole delay and holds the signal through a
 * WeakRef, which V8's minor GC treats as strong, so every request's objects reachable from the
 * signal were promoted to the old generation and freed only by a full mark-compact (one every
 * ~0.8 s at 250 req/s under the 128 MB heap cap; each a pause in every request's latency).
 * A stop whose grace ran out aborts it too (server/lifecycle/in-flight.ts).
 */
export interface RequestDeadline {
  readonly signal: AbortSignal;
  clear(): void;
  /** Ends the call before its deadline (a streamed answer's client went away). */
  abort(reason: unknown): void;
}

export function requestDeadline(ms: number): RequestDeadline {
  const controller = new AbortController();
  // The engine's retries read when it fires, so no wait of theirs reaches past it.
  markDeadline(controller.signal, Date.now() + ms);
  const timer = setTimeout(() => controller.abort(new DOMException('The operation timed out.', 'TimeoutError')), ms);
  timer.unref();
  const forget = cuttable(controller);
  return {
    signal: controller.signal,
    clear: () => {
      clearTimeout(timer);
      forget();
    },
    abort: (reason) => controller.abort(reason),
  };
}
