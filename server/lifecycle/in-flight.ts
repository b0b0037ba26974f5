// The engine calls running in this process, so that a stop whose grace ran out can cut them
// short: each one's deadline is aborted, its engine call ends, the request answers 503 and its
// units go back (the pipeline's usual path for a call that failed). Kept on globalThis because
// the launcher (scripts/start.ts) and the app (Next's bundle) load separate copies of this module.

const RUNNING = Symbol.for('wgs.inFlight.running');
const CUT = Symbol.for('wgs.inFlight.cut');
const registry = globalThis as typeof globalThis & { [RUNNING]?: Set<AbortController>; [CUT]?: Error };

/** Registers a request's deadline; the function returned forgets it (call it when the request ends). */
export function cuttable(controller: AbortController): () => void {
  const cut = registry[CUT];
  if (cut) {
    controller.abort(cut); // the grace is over: a call that starts now is cut at once
    return () => {};
  }
  const running = (registry[RUNNING] ??= new Set());
  running.add(controller);
  return () => running.delete(controller);
}

/** Aborts every registered call, and every one registered from now on; returns how many were running. */
export function cutShortInFlight(): number {
  const reason = new DOMException('The instance is shutting down.', 'AbortError');
  registry[CUT] = reason;
  const running = registry[RUNNING] ?? new Set();
  const count = running.size;
  for (const controller of running) controller.abort(reason);
  running.clear();
  return count;
}
