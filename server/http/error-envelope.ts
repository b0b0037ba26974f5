import type { ErrorCode } from '../domain/errors';

/** The error body of interface-v1.md §7: exactly these members, `details` only when given. */
export function errorEnvelope(code: ErrorCode, message: string, requestId: string, details?: Record<string, unknown>) {
  return { error: { code, message, request_id: requestId, ...(details ? { details } : {}) } };
}
