import { createHmac, timingSafeEqual } from 'node:crypto';
import { getConfig } from '../config';
import { assertSafeKey } from './object-store';

// Short-lived private URLs: /files/<key>?exp=<unix s>&type=<mime>&sig=<HMAC-SHA256>. The
// signature covers the key, the expiry and the content type, so none can be changed.

export const FILES_PREFIX = '/files/';

function secret(): string {
  const value = getConfig().SIGNING_SECRET ?? process.env.SIGNING_SECRET;
  if (!value) throw new Error('SIGNING_SECRET is not set');
  return value;
}

function signature(key: string, expires: number, contentType: string): string {
  return createHmac('sha256', secret()).update(`${key}\n${expires}\n${contentType}`).digest('base64url');
}

export interface SignedUrl {
  url: string;
  expiresAt: Date;
}

export function signObjectUrl(origin: string, key: string, contentType: string, ttlSeconds = getConfig().OUTPUT_URL_TTL_SECONDS): SignedUrl {
  assertSafeKey(key);
  const expires = Math.floor(Date.now() / 1000) + ttlSeconds;
  const query = new URLSearchParams({ exp: String(expires), type: contentType, sig: signature(key, expires, contentType) });
  return { url: `${origin}${FILES_PREFIX}${key}?${query}`, expiresAt: new Date(expires * 1000) };
}

export type VerifiedUrl = { ok: true; key: string; contentType: string } | { ok: false; reason: 'invalid' | 'expired' };

/** Checks a /files URL: untampered (constant-time compare) and not expired. */
export function verifyObjectUrl(url: URL): VerifiedUrl {
  if (!url.pathname.startsWith(FILES_PREFIX)) return { ok: false, reason: 'invalid' };
  const key = decodeURIComponent(url.pathname.slice(FILES_PREFIX.length));
  const exp = url.searchParams.get('exp') ?? '';
  const contentType = url.searchParams.get('type') ?? '';
  const given = Buffer.from(url.searchParams.get('sig') ?? '');
  const expires = Number(exp);
  if (!/^\d{1,12}$/.test(exp) || !contentType) return { ok: false, reason: 'invalid' };
  try {
    assertSafeKey(key);
  } catch {
    return { ok: false, reason: 'invalid' };
  }
  const expected = Buffer.from(signature(key, expires, contentType));
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return { ok: false, reason: 'invalid' };
  if (expires * 1000 <= Date.now()) return { ok: false, reason: 'expired' };
  return { ok: true, key, contentType };
}
