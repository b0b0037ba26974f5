// The error codes of /v1 with their HTTP status and default message (interface-v1.md §7,
// CONTRACT.md §2 and §8): part of the published interface, so the contract holds them; the domain's
// ApiError, the envelope, tRPC's codes and the OpenAPI document all read them from here. A
// `streamOnly` code is never an HTTP answer: it ends an event stream (status 200) with its `error` event.

export const ERROR_CATALOG = {
  invalid_request: { status: 400, message: 'The request is malformed.' },
  missing_idempotency_key: { status: 400, message: 'The Idempotency-Key header is required on every POST.' },
  invalid_idempotency_key: {
    status: 400,
    message: 'The Idempotency-Key header must be 8 to 128 characters from A-Z a-z 0-9 - _ . ~ :',
  },
  invalid_api_key: { status: 401, message: 'The API key is missing, invalid or inactive.' },
  quota_exhausted: { status: 402, message: 'The purchased quota is exhausted.' },
  forbidden: { status: 403, message: 'This API key may not use this operation.' },
  not_found: { status: 404, message: 'The requested resource was not found.' },
  method_not_allowed: { status: 405, message: 'This method is not allowed on this path.' },
  idempotency_key_in_use: {
    status: 409,
    message: 'A request with this Idempotency-Key is still being processed. Retry later with the same key.',
  },
  job_not_cancellable: {
    status: 409,
    message: 'The job has already ended and cannot be cancelled.',
  },
  payload_too_large: { status: 413, message: 'The request or declared upload exceeds the allowed size.' },
  unsupported_media_type: { status: 415, message: 'Content-Type must be application/json.' },
  validation_error: { status: 422, message: 'The request failed validation.' },
  idempotency_key_reused: {
    status: 422,
    message: 'This Idempotency-Key was already used for a different request.',
  },
  rate_limited: { status: 429, message: 'Rate or concurrency limit reached. Retry later.' },
  internal_error: { status: 500, message: 'An unexpected error occurred.' },
  output_interrupted: {
    status: 200,
    streamOnly: true,
    message:
      'The answer ended before it was complete, after part of it was delivered. The units were charged; a retry with the same Idempotency-Key replays this answer and charges nothing more.',
  },
  provider_unavailable: {
    status: 503,
    message: 'The provider is unavailable. No units were charged; retry later with the same Idempotency-Key.',
  },
} as const satisfies Record<string, { status: number; message: string; streamOnly?: true }>;

export type ErrorCode = keyof typeof ERROR_CATALOG;
export const ERROR_CODES = Object.keys(ERROR_CATALOG) as ErrorCode[];

/** Whether a code only ever ends an event stream (never an HTTP error answer). */
export function isStreamOnly(code: ErrorCode): boolean {
  return 'streamOnly' in ERROR_CATALOG[code];
}
