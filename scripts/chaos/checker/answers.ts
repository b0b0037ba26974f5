import type { Attempt, CallRecord } from '../history';

// What an attempt delivered to its client, read from what the client recorded.

/** The JSON of `text`, or undefined when it is none. */
export function parseJson(text: string | undefined): Record<string, unknown> | undefined {
  if (text === undefined) return undefined;
  try {
    const value: unknown = JSON.parse(text);
    return value && typeof value === 'object' ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/** A whole answer: a 2xx JSON body, or a stream's `done` data. */
export function completeAnswer(attempt: Attempt): string | undefined {
  if (attempt.ending === 'done') return attempt.endingData;
  if (attempt.status !== undefined && attempt.status >= 200 && attempt.status < 300 && !attempt.deltas) return attempt.body;
  return undefined;
}

/** The text the client received of a streamed answer (every delta, joined). */
export const deliveredText = (attempt: Attempt): string => (attempt.deltas ?? []).join('');

/** Whether output reached the client: a whole 200 answer, or at least one streamed delta. */
export function deliveredOutput(attempt: Attempt): boolean {
  if ((attempt.deltas?.length ?? 0) > 0) return true;
  return attempt.status === 200 && completeAnswer(attempt) !== undefined;
}

/** The usage event id a whole generation answer names (its `id`). */
export function answerId(attempt: Attempt): string | undefined {
  const id = parseJson(completeAnswer(attempt))?.id;
  return typeof id === 'string' ? id : undefined;
}

/** The request whose answer a replayed stream gives again: the one its `error` event names (`output_interrupted`). */
export function replayedRequestId(attempt: Attempt): string | undefined {
  if (!attempt.replayed || attempt.ending !== 'error') return undefined;
  const error = parseJson(attempt.endingData)?.error as { request_id?: unknown } | undefined;
  return typeof error?.request_id === 'string' ? error.request_id : undefined;
}

/** The error code of a stream's `error` event. */
export function streamErrorCode(attempt: Attempt): string | undefined {
  if (attempt.ending !== 'error') return undefined;
  const error = parseJson(attempt.endingData)?.error as { code?: unknown } | undefined;
  return typeof error?.code === 'string' ? error.code : undefined;
}

/** The same JSON whatever the order of its members, for comparing answers. */
export function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([key, item]) => `${JSON.stringify(key)}:${canonical(item)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

/** Calls made through /v1 whose answers are generations (not the checkout flows, not jobs). */
export const isGeneration = (call: CallRecord): boolean => call.operation !== 'videos.generate' && call.operation !== 'checkout';
