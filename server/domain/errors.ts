import { ERROR_CATALOG, type ErrorCode } from '../contract/error-catalog';

// The one error type of the product. Domain code throws ApiError with a code from this
// catalog; server/http maps it to the envelope and server/trpc to a tRPC code, each once.

export { ERROR_CATALOG, ERROR_CODES, type ErrorCode } from '../contract/error-catalog';

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

  /** Retry-After's value, the wait in whole seconds and at least 1; none without a wait. */
  get retryAfterHeader(): string | undefined {
    return this.retryAfter === undefined ? undefined : String(Math.max(1, Math.ceil(this.retryAfter)));
  }

  /** The same error with more response headers (the error's own win over these), and another wait when given. */
  withHeaders(headers: Record<string, string>, retryAfter = this.retryAfter): ApiError {
    return new ApiError(this.code, {
      message: this.message,
      details: this.details,
      retryAfter,
      headers: { ...headers, ...this.headers },
      cause: this.cause,
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

/** The issues a validation error carries (ApiError.validation's); none for any other error. */
export function validationIssuesOf(error: unknown): ValidationIssue[] {
  if (!isApiError(error)) return [];
  const issues = error.details?.issues;
  return Array.isArray(issues) ? (issues as ValidationIssue[]) : [];
}
