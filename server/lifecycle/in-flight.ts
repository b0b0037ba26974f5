// The engine calls running in this process, so that a stop whose grace ran out can cut them
// short: each one's deadline is aborted, its engine call ends, the request answers 503 and its
// units go back (the pipeline's usual path for a call that failed).

const running = new Set<AbortController>();
/** Set once the grace is over: every call registered from then on is cut at once. */
let cutReason: Error | undefined;

/** Registers a request's deadline; the function returned forgets it (call it when the request ends). */
export function cuttable(controller: AbortController): () => void {
  if (cutReason) {
    controller.abort(cutReason); // the grace is over: a call that starts now is cut at once
    return () => {};
  }
  running.add(controller);
  return () => running.delete(controller);
}

/** Aborts every registered call, and every one registered from now on; returns how many were running. */
export function cutShortInFlight(): number {
  const reason = new DOMException('The instance is shutting down.', 'AbortError');
  cutReason = reason;
  const count = running.size;
  for (const controller of running) controller.abort(reason);
  running.clear();
  return count;
}
