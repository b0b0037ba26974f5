// The one error type of the product. Domain code throws ApiError with a code from this
// catalog; server/http maps it to the envelope and server/trpc to a tRPC code, each once.

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
  payload_too_large: { status: 413, message: 'The request or declared upload exceeds the allowed size.' },
  unsupported_media_type: { status: 415, message: 'Content-Type must be application/json.' },
  validation_error: { status: 422, message: 'The request failed validation.' },
  idempotency_key_reused: {
    status: 422,
    message: 'This Idempotency-Key was already used for a different request.',
  },
  rate_limited: { status: 429, message: 'Rate or concurrency limit reached. Retry later.' },
  internal_error: { status: 500, message: 'An unexpected error occurred.' },
  provider_unavailable: {
    status: 503,
    message: 'The provider is unavailable. No units were charged; retry later with the same Idempotency-Key.',
  },
} as const satisfies Record<string, { status: number; message: string }>;

export type ErrorCode = keyof typeof ERROR_CATALOG;
export const ERROR_CODES = Object.keys(ERROR_CATALOG) as ErrorCode[];

export interface ValidationIssue {
  path: string;
  code: string;
  message: string;
}

export interface ApiErrorOptions {
  message?: string;
  details?: Record<string, unknown>;
  /** Seconds, for the Retry-After header of retryable errors. */
  retryAfter?: number;
  headers?: Record<string, string>;
  cause?: unknown;
}

export class ApiError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly details?: Record<string, unknown>;
  readonly retryAfter?: number;
  readonly headers?: Record<string, string>;

  constructor(code: ErrorCode, options: ApiErrorOptions = {}) {
    super(options.message ?? ERROR_CATALOG[code].message, { cause: options.cause });
    this.name = 'ApiError';
    this.code = code;
    this.status = ERROR_CATALOG[code].status;
    this.details = options.details;
    this.retryAfter = options.retryAfter;
    this.headers = options.headers;
  }

  /** The same error with more response headers (the error's own win over these). */
  withHeaders(headers: Record<string, string>): ApiError {
    return new ApiError(this.code, {
      message: this.message, details: this.details, retryAfter: this.retryAfter, headers: { ...headers, ...this.headers }, cause: this.cause,
    });
  }

  static validation(issues: ValidationIssue[], message?: string): ApiError {
    return new ApiError('validation_error', {
      message: message ?? issues[0]?.message ?? ERROR_CATALOG.validation_error.message,
      details: { issues },
    });
  }
}

export function isApiError(error: unknown): error is ApiError {
  return error instanceof ApiError;
}
