import { TRPCError } from '@trpc/server';
import type { TRPC_ERROR_CODE_KEY } from '@trpc/server';
import { ERROR_CATALOG, isApiError, validationIssuesOf, type ApiError } from '../domain/errors';
import { pathOf, withoutSafeIntegerBounds, type SchemaIssue } from '../domain/zod-issues';

// The one place where the product's error catalog becomes tRPC codes: by HTTP status, so the
// dashboard and the REST API always agree on what kind of failure an error is.
const BY_STATUS: Record<number, TRPC_ERROR_CODE_KEY> = {
  400: 'BAD_REQUEST',
  401: 'UNAUTHORIZED',
  402: 'PAYMENT_REQUIRED',
  403: 'FORBIDDEN',
  404: 'NOT_FOUND',
  405: 'METHOD_NOT_SUPPORTED',
  409: 'CONFLICT',
  413: 'PAYLOAD_TOO_LARGE',
  415: 'UNSUPPORTED_MEDIA_TYPE',
  422: 'UNPROCESSABLE_CONTENT',
  429: 'TOO_MANY_REQUESTS',
  503: 'SERVICE_UNAVAILABLE',
};

export function trpcCodeForStatus(status: number): TRPC_ERROR_CODE_KEY {
  return BY_STATUS[status] ?? 'INTERNAL_SERVER_ERROR';
}

export function toTRPCError(error: ApiError): TRPCError {
  // A 500 says nothing of its insides; a 503 of the domain's says its own sentence (an e-mail that could not be sent).
  const message = error.status === 500 ? ERROR_CATALOG.internal_error.message : error.message;
  return new TRPCError({ code: trpcCodeForStatus(error.status), message, cause: error });
}

/** The catalog code and issues carried to the client in `error.data`. */
export function apiErrorData(cause: unknown): { apiCode: string | null; issues: unknown[] | null } {
  if (isApiError(cause)) {
    const issues = validationIssuesOf(cause);
    return { apiCode: cause.code, issues: issues.length > 0 ? issues : null };
  }
  // tRPC's own input validation (zod via Standard Schema) fails with the schema's issues.
  const issues = (cause as { issues?: unknown } | undefined)?.issues;
  if (Array.isArray(issues)) {
    return {
      apiCode: 'validation_error',
      issues: withoutSafeIntegerBounds(issues as (SchemaIssue & { message?: string })[]).map((issue) => ({
        path: pathOf(issue),
        code: issue.code ?? 'invalid',
        message: issue.message ?? 'invalid value',
      })),
    };
  }
  return { apiCode: null, issues: null };
}
