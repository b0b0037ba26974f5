import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { getConfig } from '../config';
import { assertSafeKey } from './object-store';

// Short-lived private URLs: /files/<key>?exp=<unix s>&type=<mime>&n=<nonce>&sig=<HMAC-SHA256>.
// The signature covers the key, the expiry, the content type and the nonce, so none can be
// changed; the nonce makes every URL handed out a fresh one, even two in the same second.

export const FILES_PREFIX = '/files/';

function secret(): string {
  const value = getConfig().SIGNING_SECRET;
  if (!value) throw new Error('SIGNING_SECRET is not set');
  return value;
}

function signature(key: string, expires: number, contentType: string, nonce: string): string {
  return createHmac('sha256', secret()).update(`${key}\n${expires}\n${contentType}\n${nonce}`).digest('base64url');
}

export interface SignedUrl {
  url: string;
  expiresAt: Date;
}

export function signObjectUrl(
  origin: string,
  key: string,
  contentType: string,
  ttlSeconds = getConfig().OUTPUT_URL_TTL_SECONDS,
): SignedUrl {
  assertSafeKey(key);
  // Rounded up: the URL lives at least ttlSeconds (rounded down, up to a second less: clock audit).
  const expires = Math.ceil(Date.now() / 1000 + ttlSeconds);
  const nonce = randomBytes(9).toString('base64url');
  const query = new URLSearchParams({
    exp: String(expires),
    type: contentType,
    n: nonce,
    sig: signature(key, expires, contentType, nonce),
  });
  return { url: `${origin}${FILES_PREFIX}${key}?${query}`, expiresAt: new Date(expires * 1000) };
}

export type VerifiedUrl = { ok: true; key: string; contentType: string } | { ok: false; reason: 'invalid' | 'expired' };

/** Checks a /files URL: untampered (constant-time compare) and not expired. */
export function verifyObjectUrl(url: URL): VerifiedUrl {
  if (!url.pathname.startsWith(FILES_PREFIX)) return { ok: false, reason: 'invalid' };
  const key = decodeURIComponent(url.pathname.slice(FILES_PREFIX.length));
  const exp = url.searchParams.get('exp') ?? '';
  const contentType = url.searchParams.get('type') ?? '';
  const nonce = url.searchParams.get('n') ?? '';
  const given = Buffer.from(url.searchParams.get('sig') ?? '');
  const expires = Number(exp);
  if (!/^\d{1,12}$/.test(exp) || !contentType || !/^[A-Za-z0-9_-]{12}$/.test(nonce)) return { ok: false, reason: 'invalid' };
  try {
    assertSafeKey(key);
  } catch {
    return { ok: false, reason: 'invalid' };
  }
  const expected = Buffer.from(signature(key, expires, contentType, nonce));
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return { ok: false, reason: 'invalid' };
  if (expires * 1000 <= Date.now()) return { ok: false, reason: 'expired' };
  return { ok: true, key, contentType };
}
