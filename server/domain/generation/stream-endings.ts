import type { TextTask } from '../../providers/engine';

// Output delivered is output paid for (CONTRACT.md §8): once a streamed answer's first delta was
// written, the call is charged whatever ends it. Each way it can end without `done` is named here:
// the charged usage event's error_code, and the reason its `error` event (`output_interrupted`) gives.

export const STREAM_ENDINGS = {
  /** The client went away; the call ran to its end (or to one of the endings below). */
  client_disconnected: 'The client went away before the answer was complete.',
  /** The provider failed after its first piece (no retry, no fallback: the customer has part of the answer). */
  provider_failed: 'The provider failed after part of the answer was delivered.',
  /** The request's deadline (IDEMPOTENCY_LEASE_SECONDS − 5 s) cut the answer. */
  deadline_exceeded: "The answer was cut off at the request's time limit.",
  /** output_format "json", and the text delivered does not parse. */
  output_not_json: 'The answer is not valid JSON, as output_format "json" requires.',
  /** Every piece delivered was whitespace. */
  output_empty: 'The answer holds nothing but whitespace.',
  /** The service stopped after the first delta: its process died (the sweeper captured the hold), or a stop's grace ran out. */
  stream_interrupted: 'The service stopped before the answer was complete.',
} as const;

export type StreamEnding = keyof typeof STREAM_ENDINGS;

/** The message of a stream's `output_interrupted` event: why it ended, and that it was charged. */
export function interruptedMessage(ending: StreamEnding): string {
  return `${STREAM_ENDINGS[ending]} The units were charged for the output delivered; a retry with the same Idempotency-Key replays this answer and charges nothing more.`;
}

/** How a whole streamed text fails its task's output format, if it does (its pieces were delivered already). */
export function unfitStreamedText(text: string, outputFormat: TextTask['outputFormat']): StreamEnding | undefined {
  if (text.trim() === '') return 'output_empty';
  if (outputFormat !== 'json') return undefined;
  try {
    JSON.parse(text);
    return undefined;
  } catch {
    return 'output_not_json';
  }
}
