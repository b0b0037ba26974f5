import { APICallError, RetryError } from 'ai';
import type { ProviderFailureKind } from '../engine';

// How an AI SDK call failed, read from its error classes: the HTTP status of the last attempt,
// a timeout or abort, a connection that never opened, or an answer the SDK could not parse.

const MALFORMED = new Set([
  'AI_JSONParseError',
  'AI_TypeValidationError',
  'AI_InvalidResponseDataError',
  'AI_EmptyResponseBodyError',
  'AI_NoContentGeneratedError',
  'AI_NoImageGeneratedError',
  'AI_NoObjectGeneratedError',
  'AI_NoOutputGeneratedError',
  'AI_NoSpeechGeneratedError',
  'AI_NoTranscriptGeneratedError',
  'AI_NoVideoGeneratedError',
  'AI_DownloadError',
]);

function lastAttempt(error: unknown): unknown {
  return RetryError.isInstance(error) ? error.lastError : error;
}

export function failureKindOf(error: unknown): ProviderFailureKind {
  const last = lastAttempt(error);
  const name = (last as { name?: string } | null)?.name ?? '';
  if (name === 'TimeoutError' || name === 'AbortError' || name === 'ResponseAborted') return 'timeout';
  // APICallError, and the gateway's own error classes, carry the status of the last attempt.
  const status = (last as { statusCode?: unknown } | null)?.statusCode;
  if (APICallError.isInstance(last) && status === undefined) return 'connection';
  if (typeof status === 'number') {
    if (status === 429) return 'rate_limited';
    if (status >= 500) return 'server_error';
    if (status >= 400) return 'rejected';
    return 'malformed'; // a 2xx the SDK could not read
  }
  if (MALFORMED.has(name) || name === 'GatewayResponseError') return 'malformed';
  if (name === 'AI_LoadAPIKeyError' || name === 'AI_LoadSettingError') return 'not_configured';
  return 'server_error';
}

/** A provider's Retry-After (seconds, 1 to 300), 5 when it names none. */
export function retryAfterOf(error: unknown): number {
  const last = lastAttempt(error);
  const value = APICallError.isInstance(last) ? last.responseHeaders?.['retry-after'] : undefined;
  const seconds = Number(value);
  return Number.isFinite(seconds) && seconds > 0 ? Math.min(Math.ceil(seconds), 300) : 5;
}
