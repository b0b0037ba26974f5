// Why an engine call's signal fired: its deadline (AbortSignal.timeout's TimeoutError: the provider
// was too slow), or its owner stopping it (a job cancelled, a client gone, the instance stopping),
// which says nothing of the provider: its metrics and log lines say `cancelled`, not an error.

export function isDeadline(reason: unknown): boolean {
  return reason instanceof DOMException && reason.name === 'TimeoutError';
}

/** Whether `signal` was aborted by its owner rather than by its deadline. */
export function stoppedByCaller(signal: AbortSignal | undefined): boolean {
  return signal?.aborted === true && !isDeadline(signal.reason);
}
