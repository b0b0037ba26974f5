import { isStoreUnavailable, STORE_RETRY_AFTER_SECONDS } from '../db/store-unavailable';
import { ApiError, ERROR_CATALOG, isApiError, type ErrorCode } from '../domain/errors';
import { noteError, type RequestRecord } from '../observability/request-record';
import { errorEnvelope } from './error-envelope';

// The only place that builds /v1 responses: every one carries X-Request-Id and
// Cache-Control: no-store, and every error has exactly the envelope of interface-v1.md §7.

export function baseHeaders(requestId: string, extra?: Record<string, string>): Headers {
  const headers = new Headers(extra);
  headers.set('X-Request-Id', requestId);
  headers.set('Cache-Control', 'no-store');
  return headers;
}

/**
 * A signed URL's answer (its download, its upload) names no page it was reached from: the URL in
 * the query is a credential, and a Referer would carry it to whatever the answer links to.
 */
export function noReferrer(response: Response): Response {
  response.headers.set('Referrer-Policy', 'no-referrer');
  return response;
}

export function jsonText(status: number, body: string, requestId: string, extra?: Record<string, string>): Response {
  const headers = baseHeaders(requestId, extra);
  headers.set('Content-Type', 'application/json; charset=utf-8');
  return new Response(body, { status, headers });
}

export function jsonResponse(status: number, body: unknown, requestId: string, extra?: Record<string, string>): Response {
  return jsonText(status, JSON.stringify(body), requestId, extra);
}

/**
 * Maps any thrown value to the error envelope. Unknown errors become a generic 500. The code is
 * noted in the request's `record` (a /v1 request's), for its log line and metrics.
 */
export function toErrorResponse(error: unknown, requestId: string, record?: RequestRecord, headers?: Record<string, string>): Response {
  const apiError = toApiError(error, requestId);
  const extra: Record<string, string> = { ...headers, ...apiError.headers };
  if (apiError.retryAfterHeader) extra['Retry-After'] = apiError.retryAfterHeader;
  // RFC 9110 §15.5.2: a 401 names the scheme that would succeed (RFC 6750's Bearer).
  if (apiError.status === 401) extra['WWW-Authenticate'] ??= 'Bearer realm="api"';
  if (record) noteError(record, apiError);
  return jsonResponse(apiError.status, errorBody(apiError, requestId), requestId, extra);
}

/** The envelope of an error, as toErrorResponse's body (a streamed answer's `error` event carries it too). */
export function errorBody(apiError: ApiError, requestId: string): ReturnType<typeof errorEnvelope> {
  const message = apiError.code === 'internal_error' ? ERROR_CATALOG.internal_error.message : apiError.message;
  return errorEnvelope(apiError.code, message, requestId, apiError.details);
}

/** The code a thrown value is answered with (toApiError's), without logging it. */
export function answeredCode(error: unknown): ErrorCode {
  if (isApiError(error)) return error.code;
  return isStoreUnavailable(error) ? 'provider_unavailable' : 'internal_error';
}

/** Any thrown value as the ApiError it is answered with; an unknown one is logged and becomes internal_error. */
export function toApiError(error: unknown, requestId: string): ApiError {
  let apiError: ApiError;
  if (isApiError(error)) {
    apiError = error;
  } else if (isStoreUnavailable(error)) {
    // Fail closed and retryable: nothing was charged, the same Idempotency-Key may be reused.
    apiError = new ApiError('provider_unavailable', {
      message:
        'The service is temporarily unavailable. Retry later (a POST with the same Idempotency-Key): a request that did not complete is not charged, and one that did is replayed.',
      retryAfter: STORE_RETRY_AFTER_SECONDS,
      cause: error, // the request's log line says so (not a provider)
    });
  } else {
    console.error(`[${requestId}] unexpected error`, error);
    apiError = new ApiError('internal_error');
  }
  return apiError;
}
