import { APICallError, RetryError } from 'ai';
import type { ProviderFailureKind } from './engine';

// The one reading of a failed provider call, for every provider type: what kind of failure it was
// (which decides about the next engine of a list, see call-engine.ts), whether one more attempt
// may do better, and how long the provider asked to be left alone. Every engine path throws the
// AI SDK's error vocabulary (APICallError with the HTTP status and headers, a TimeoutError, a
// parse error); the `openai` video adapter translates the official client's errors into it.

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
  'GatewayResponseError',
]);

/** Refusals of the customer's input: the next provider would refuse it too. */
const INPUT_REFUSALS = new Set([400, 413, 422]);
/** Refusals of the operator's configuration: a wrong key, a model or path this provider lacks. */
const CONFIGURATION_REFUSALS = new Set([401, 403, 404]);

function lastAttempt(error: unknown): unknown {
  return RetryError.isInstance(error) ? error.lastError : error;
}

/** The HTTP status of the (last) answer, when the provider answered at all. */
export function statusOf(error: unknown): number | undefined {
  const status = (lastAttempt(error) as { statusCode?: unknown } | null)?.statusCode;
  return typeof status === 'number' ? status : undefined;
}

/**
 * Whether the connection closed while the answer was being read: undici's "terminated", which the
 * AI SDK wraps as "Failed to process successful response" with the answer's 200 (its cause).
 */
function cutOffMidAnswer(error: unknown): boolean {
  let cause = error;
  for (let depth = 0; cause instanceof Error && depth < 4; depth++, cause = cause.cause) {
    if (cause instanceof TypeError && cause.message === 'terminated') return true;
  }
  return false;
}

export function failureKindOf(error: unknown): ProviderFailureKind {
  const last = lastAttempt(error);
  const name = (last as { name?: string } | null)?.name ?? '';
  if (name === 'TimeoutError' || name === 'AbortError' || name === 'ResponseAborted') return 'timeout';
  const status = statusOf(last);
  if (status !== undefined) {
    if (status === 408) return 'timeout';
    if (status === 429) return 'rate_limited';
    if (status === 409 || status >= 500) return 'server_error';
    if (CONFIGURATION_REFUSALS.has(status)) return 'not_configured';
    if (INPUT_REFUSALS.has(status)) return 'rejected';
    if (status >= 400) return 'rejected';
    // A 2xx the SDK could not read: cut off as it came (a connection failure, as before it), or not what it should be.
    return cutOffMidAnswer(last) ? 'connection' : 'malformed';
  }
  // An APICallError without a status: the connection never gave an answer (refused, reset).
  if (APICallError.isInstance(last) || cutOffMidAnswer(last)) return 'connection';
  if (last instanceof TypeError && last.message === 'fetch failed') return 'connection';
  if (MALFORMED.has(name)) return 'malformed';
  if (name === 'AI_LoadAPIKeyError' || name === 'AI_LoadSettingError') return 'not_configured';
  return 'server_error';
}

/**
 * Whether one more attempt of the same call may do better: 408, 409, 429 and 5xx answers, and
 * calls that got no whole answer (a refused or reset connection, one closed while its answer came, an
 * attempt's own timeout).
 */
export function isRetryable(error: unknown): boolean {
  const kind = failureKindOf(error);
  if (kind === 'connection' || kind === 'timeout') return true; // 408 included; also an answer cut off as it came
  const status = statusOf(error);
  return status === 409 || status === 429 || (status !== undefined && status >= 500);
}

function headersOf(error: unknown): Record<string, string> | undefined {
  const last = lastAttempt(error);
  return APICallError.isInstance(last) ? last.responseHeaders : undefined;
}

/**
 * How long the provider asked to wait, in ms: `retry-after-ms`, else `retry-after` as seconds or
 * an HTTP date; undefined when it named none (or nonsense).
 */
export function retryAfterMsOf(error: unknown, now = Date.now()): number | undefined {
  const headers = headersOf(error);
  if (!headers) return undefined;
  const ms = Number(headers['retry-after-ms']);
  if (headers['retry-after-ms'] !== undefined && Number.isFinite(ms) && ms >= 0) return ms;
  return retryAfterHeaderMs(headers, now);
}

function retryAfterHeaderMs(headers: Record<string, string>, now: number): number | undefined {
  const value = headers['retry-after'];
  if (value === undefined || value.trim() === '') return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds)) return seconds >= 0 ? seconds * 1000 : undefined;
  const date = Date.parse(value);
  return Number.isFinite(date) ? Math.max(0, date - now) : undefined;
}

/** The Retry-After (whole seconds, 1 to 300) the customer is told after this failure; 5 when the provider named none. */
export function retryAfterSecondsOf(error: unknown, now = Date.now()): number {
  const headers = headersOf(error);
  // The header meant for people first; `retry-after-ms` is a hint for immediate client retries.
  const ms = headers && (retryAfterHeaderMs(headers, now) ?? retryAfterMsOf(error, now));
  return ms !== undefined && ms > 0 ? Math.min(Math.ceil(ms / 1000), 300) : 5;
}
