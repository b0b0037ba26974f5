import { IDEMPOTENCY_KEY_PATTERN } from '../contract/values';
import { ApiError } from '../domain/errors';

// `application/json` with no parameter but one `charset=utf-8` (bare or quoted, any case; no
// blanks around `=`, as RFC 9110 §5.6.6's grammar has none). Empty parameters
// (`application/json;`, `...;charset=utf-8;`) are allowed, as that grammar allows them. Each run of
// blanks has exactly one place in the pattern that can take it (no backtracking blow-up).
const JSON_CONTENT_TYPE = /^application\/json(?:[ \t]*;)*(?:(?<=;)[ \t]*charset=(?:utf-8|"utf-8")(?:[ \t]*;)*)?[ \t]*$/i;

/**
 * `application/json`, optionally with `charset=utf-8` in any case; anything else is 415, and so
 * is a body in a content coding (gzip, ...) the API does not decode (RFC 9110 §15.5.16).
 */
export function requireJsonContentType(request: Request): void {
  const value = request.headers.get('content-type');
  if (value === null || !JSON_CONTENT_TYPE.test(value.trim())) throw new ApiError('unsupported_media_type');
  const coding = request.headers.get('content-encoding')?.trim().toLowerCase();
  if (coding && coding !== 'identity') {
    throw new ApiError('unsupported_media_type', { message: 'Content-Encoding is not supported: send the JSON body uncompressed.' });
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

const HOST = /^(?:[A-Za-z0-9][A-Za-z0-9.-]{0,252}|\[[0-9A-Fa-f:.]{2,45}\])(?::\d{1,5})?$/;

/** The first value of a possibly comma-separated forwarding header. */
function firstForwarded(request: Request, name: string): string | undefined {
  return request.headers.get(name)?.split(',')[0]?.trim() || undefined;
}

/**
 * The origin the client used, for URLs handed back to it (uploads, outputs) when PUBLIC_BASE_URL
 * is not set: the forwarded Host (only behind a trusted proxy, TRUST_PROXY), else the request's
 * Host, and the protocol. A malformed value is skipped for the next one; the server's own origin
 * is the last resort. Only the caller's own response is affected: the URLs' signatures do not
 * cover the host.
 */
export function publicOrigin(request: Request, configured: string | undefined, trustProxy: boolean): string {
  if (configured) return configured;
  const own = new URL(request.url);
  const proto = trustProxy ? firstForwarded(request, 'x-forwarded-proto')?.toLowerCase() : undefined;
  const protocol = proto === 'https' || proto === 'http' ? proto : own.protocol.slice(0, -1);
  const host = [trustProxy ? firstForwarded(request, 'x-forwarded-host') : undefined, request.headers.get('host')].find(
    (candidate) => candidate !== undefined && candidate !== null && HOST.test(candidate),
  );
  return host ? `${protocol}://${host.toLowerCase()}` : own.origin;
}
