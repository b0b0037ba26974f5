import { ApiError, ERROR_CATALOG, validationIssuesOf, type ErrorCode } from '../../domain/errors';
import { noteError, type RequestRecord } from '../../observability/request-record';
import { jsonResponse, toApiError } from '../responses';
import { openAIRateHeaders } from './openai-headers';

// The OpenAI-compatible surface's one error format, OpenAI's: `{"error":{"message","type","param","code"}}`
// with OpenAI's statuses, types and codes where it has them, `retry-after` and `x-ratelimit-*` on a 429,
// and `x-should-retry`, which the official SDKs obey: `false` wherever a retry cannot succeed (spent
// units, validation, a key conflict), so they stop at once; `true` where one may (409 while the call
// runs, 429, 5xx). The domain's ApiError is mapped here once, as server/http/responses.ts maps it for /v1.

export interface OpenAIErrorBody {
  error: { message: string; type: string; param: string | null; code: string | null };
}

interface Mapped {
  status: number;
  type: string;
  code: string;
  retry: boolean;
}

const INVALID = 'invalid_request_error';

/** How each code of the catalog answers on this surface; a code not listed keeps its status. */
const MAPPED: Partial<Record<ErrorCode, Mapped>> = {
  invalid_request: { status: 400, type: INVALID, code: 'invalid_request', retry: false },
  missing_idempotency_key: { status: 400, type: INVALID, code: 'idempotency_key_required', retry: false },
  invalid_idempotency_key: { status: 400, type: INVALID, code: 'invalid_idempotency_key', retry: false },
  invalid_api_key: { status: 401, type: INVALID, code: 'invalid_api_key', retry: false },
  quota_exhausted: { status: 429, type: 'insufficient_quota', code: 'insufficient_quota', retry: false },
  forbidden: { status: 403, type: 'permission_error', code: 'forbidden', retry: false },
  not_found: { status: 404, type: INVALID, code: 'not_found', retry: false },
  method_not_allowed: { status: 405, type: INVALID, code: 'method_not_allowed', retry: false },
  idempotency_key_in_use: { status: 409, type: INVALID, code: 'idempotency_key_in_use', retry: true },
  payload_too_large: { status: 413, type: INVALID, code: 'payload_too_large', retry: false },
  unsupported_media_type: { status: 400, type: INVALID, code: 'unsupported_media_type', retry: false },
  validation_error: { status: 400, type: INVALID, code: 'invalid_value', retry: false },
  idempotency_key_reused: { status: 422, type: INVALID, code: 'idempotency_key_reused', retry: false },
  rate_limited: { status: 429, type: 'requests', code: 'rate_limit_exceeded', retry: true },
  internal_error: { status: 500, type: 'server_error', code: 'server_error', retry: true },
  provider_unavailable: { status: 503, type: 'server_error', code: 'service_unavailable', retry: true },
};

/**
 * /v1's schema and package issue codes in this surface's words; the surface's own codes, and those
 * of a file the upload checks refuse (`mime_type_mismatch`, `input_too_long`, ...), are kept.
 */
const ISSUE_CODES: Record<string, string> = {
  required: 'missing_required_parameter',
  unknown_field: 'unsupported_parameter',
  not_allowed_by_package: 'unsupported_value',
  too_small: 'invalid_value',
  too_big: 'invalid_value',
  invalid_format: 'invalid_value',
  invalid_string: 'invalid_value',
};

/** A parameter the surface cannot honour or that is malformed: 400 naming it in `param`. */
export function refuseParam(param: string, message: string, code = 'unsupported_parameter'): ApiError {
  return new ApiError('invalid_request', { message, details: { param, code } });
}

/** The model is not one the key's package sells under this path: 404 `model_not_found`. */
export function modelNotFound(model: string): ApiError {
  // Echoed as sent, up to a length a model's name has: a 1 MB one made a 1 MB answer.
  const named = model.length > MODEL_ECHO_CHARS ? `${Array.from(model).slice(0, MODEL_ECHO_CHARS).join('')}…` : model; // whole characters
  return noModel(`The model \`${named}\` does not exist or this key's package does not sell it.`);
}

const MODEL_ECHO_CHARS = 200;

/** The key's package sells none of a path's operations, so it has no model there: 404 `model_not_found`. */
export function noModelForPath(path: string): ApiError {
  return noModel(`This key's package sells no model for POST ${path}.`);
}

const noModel = (message: string) => new ApiError('not_found', { message, details: { param: 'model', code: 'model_not_found' } });

function detail(error: ApiError, name: 'param' | 'code'): string | undefined {
  const value = error.details?.[name];
  return typeof value === 'string' ? value : undefined;
}

/** A spent budget resets at midnight UTC: no retry within the SDK's patience succeeds. */
const isBudget = (error: ApiError) => error.code === 'rate_limited' && error.details?.reason === 'budget';

function mappedOf(error: ApiError): Mapped {
  const mapped = MAPPED[error.code] ?? { status: error.status, type: 'server_error', code: error.code, retry: error.status >= 500 };
  return isBudget(error) ? { ...mapped, retry: false } : mapped;
}

/** /v1's words for a retry name the Idempotency-Key every /v1 POST carries; here it is optional. */
const PROVIDER_UNAVAILABLE =
  'The provider is unavailable. No units were charged; retry later (with the same Idempotency-Key, if one was sent).';

function messageOf(error: ApiError): string {
  if (error.code === 'internal_error') return ERROR_CATALOG.internal_error.message;
  return error.message === ERROR_CATALOG.provider_unavailable.message ? PROVIDER_UNAVAILABLE : error.message;
}

/** The status, body and headers of an error on this surface. */
export function openAIError(error: ApiError): { status: number; body: OpenAIErrorBody; headers: Record<string, string> } {
  const mapped = mappedOf(error);
  const message = messageOf(error);
  const issue = error.code === 'validation_error' ? validationIssuesOf(error)[0] : undefined;
  const param = detail(error, 'param') ?? issue?.path ?? null;
  const issueCode = detail(error, 'code') ?? issue?.code;
  const code = issueCode === undefined ? mapped.code : (ISSUE_CODES[issueCode] ?? issueCode);
  const headers: Record<string, string> = { ...openAIRateHeaders(error.headers ?? {}), 'x-should-retry': String(mapped.retry) };
  // A 405 names the methods the path takes (RFC 9110 §15.5.6), on this surface as on /v1.
  if (error.headers?.Allow) headers.allow = error.headers.Allow;
  if (error.retryAfterHeader) headers['retry-after'] = error.retryAfterHeader;
  // As on /v1: the scheme, with RFC 6750's `error="invalid_token"` when a Bearer token was sent (authenticate-key.ts).
  if (error.status === 401) headers['www-authenticate'] = error.headers?.['WWW-Authenticate'] ?? 'Bearer realm="api"';
  const body = { error: { message: message.toWellFormed(), type: mapped.type, param, code } };
  return { status: mapped.status, body, headers };
}

/** Any thrown value as this surface's error answer; its code is noted in `record` for logs and metrics. */
export function toOpenAIErrorResponse(error: unknown, requestId: string, record?: RequestRecord): Response {
  const apiError = toApiError(error, requestId);
  if (record) noteError(record, apiError);
  const { status, body, headers } = openAIError(apiError);
  return jsonResponse(status, body, requestId, headers);
}
