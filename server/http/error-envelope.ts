import type { ErrorCode } from '../domain/errors';

/**
 * Every string of an error body as well-formed Unicode: a message or issue path may quote what the
 * client sent, and a lone surrogate there (`"\ud800"`) would make the answer no I-JSON (RFC 7493),
 * which strict JSON parsers refuse to read. Each one becomes U+FFFD.
 */
function wellFormed(value: unknown): unknown {
  if (typeof value === 'string') return value.toWellFormed();
  if (Array.isArray(value)) return value.map(wellFormed);
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([name, member]) => [name.toWellFormed(), wellFormed(member)]));
  }
  return value;
}

/** The error body of interface-v1.md §7: exactly these members, `details` only when given. */
export function errorEnvelope(code: ErrorCode, message: string, requestId: string, details?: Record<string, unknown>) {
  return {
    error: {
      code,
      message: message.toWellFormed(),
      request_id: requestId,
      ...(details ? { details: wellFormed(details) as Record<string, unknown> } : {}),
    },
  };
}
