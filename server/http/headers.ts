import { ApiError } from '../domain/errors';

const JSON_CONTENT_TYPE = /^application\/json\s*(;\s*charset\s*=\s*"?utf-8"?\s*)?$/i;
const IDEMPOTENCY_KEY = /^[A-Za-z0-9\-_.~:]{8,128}$/;

/** `application/json`, optionally with `charset=utf-8` in any case; anything else is 415. */
export function requireJsonContentType(request: Request): void {
  const value = request.headers.get('content-type');
  if (value === null || !JSON_CONTENT_TYPE.test(value.trim())) throw new ApiError('unsupported_media_type');
}

/** The key bare (`abc12345`) or as an RFC 8941 string (`"abc12345"`); both name the same key. */
export function readIdempotencyKey(request: Request): string {
  const raw = request.headers.get('idempotency-key');
  if (raw === null) throw new ApiError('missing_idempotency_key');
  const value = raw.trim();
  const key = value.length >= 2 && value.startsWith('"') && value.endsWith('"') ? value.slice(1, -1) : value;
  if (!IDEMPOTENCY_KEY.test(key)) throw new ApiError('invalid_idempotency_key');
  return key;
}
