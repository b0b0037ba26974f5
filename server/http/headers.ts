import { IDEMPOTENCY_KEY_PATTERN } from '../contract/values';
import { ApiError } from '../domain/errors';

// `application/json` with no parameter but one `charset=utf-8` (bare or quoted, any case; no
// blanks around `=`, as RFC 9110 §5.6.6's grammar has none). Empty parameters
// (`application/json;`, `...;charset=utf-8;`) are allowed, as that grammar allows them. Each run of
// blanks has exactly one place in the pattern that can take it (no backtracking blow-up).
const JSON_CONTENT_TYPE = /^application\/json(?:[ \t]*;)*(?:(?<=;)[ \t]*charset=(?:utf-8|"utf-8")(?:[ \t]*;)*)?[ \t]*$/i;

/**
 * `application/json`, optionally with `charset=utf-8` in any case; anything else is 415, and so
 * is a body in a content coding the API does not decode (refuseContentCoding).
 */
export function requireJsonContentType(request: Request): void {
  const value = request.headers.get('content-type');
  if (value === null || !JSON_CONTENT_TYPE.test(value.trim())) throw new ApiError('unsupported_media_type');
  refuseContentCoding(request);
}

/**
 * A body in a content coding (gzip, ...) the API does not decode, whatever its type (JSON, a
 * multipart form): `unsupported_media_type` (RFC 9110 §15.5.16), checked after the type.
 */
export function refuseContentCoding(request: Request): void {
  const coding = request.headers.get('content-encoding')?.trim().toLowerCase();
  if (coding && coding !== 'identity') {
    throw new ApiError('unsupported_media_type', { message: 'Content-Encoding is not supported: send the body uncompressed.' });
  }
}

/** The key bare (`abc12345`) or as an RFC 8941 string (`"abc12345"`); both name the same key. */
export function readIdempotencyKey(request: Request): string {
  const raw = request.headers.get('idempotency-key');
  if (raw === null) throw new ApiError('missing_idempotency_key');
  const value = raw.trim();
  const key = value.length >= 2 && value.startsWith('"') && value.endsWith('"') ? value.slice(1, -1) : value;
  if (!IDEMPOTENCY_KEY_PATTERN.test(key)) throw new ApiError('invalid_idempotency_key');
  return key;
}
