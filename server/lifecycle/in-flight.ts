// The engine calls running in this process, so that a stop whose grace ran out can cut them
// short: each one's deadline is aborted, its engine call ends, the request answers 503 and its
// units go back (the pipeline's usual path for a call that failed).

// Slots, not a Set: a Set that takes and drops a controller per request re-allocates its table every
// few requests, and a table this long-lived module holds outlives the minor GC (7% of the bytes the
// provider path promoted to the old generation at 360 req/s). A freed slot is reused by the next call.
const slots: (AbortController | undefined)[] = [];
const freeSlots: number[] = [];
/** Set once the grace is over: every call registered from then on is cut at once. */
let cutReason: Error | undefined;

/** Registers a request's deadline; the function returned forgets it (call it when the request ends). */
export function cuttable(controller: AbortController): () => void {
  if (cutReason) {
    controller.abort(cutReason); // the grace is over: a call that starts now is cut at once
    return () => {};
  }
  const slot = freeSlots.pop() ?? slots.length;
  slots[slot] = controller;
  return () => {
    if (slots[slot] !== controller) return; // forgotten already (the slot may be another call's by now)
    slots[slot] = undefined;
    freeSlots.push(slot);
  };
}

/** Aborts every registered call, and every one registered from now on; returns how many were running. */
export function cutShortInFlight(): number {
  const reason = new DOMException('The instance is shutting down.', 'AbortError');
  cutReason = reason;
  const running = slots.filter((controller) => controller !== undefined);
  slots.length = 0;
  freeSlots.length = 0;
  for (const controller of running) controller.abort(reason);
  return running.length;
}
