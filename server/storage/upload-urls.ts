import { createHmac, timingSafeEqual } from 'node:crypto';
import { getConfig } from '../config';

// The local store's direct upload URL: /uploads/<uploadId>?exp=<unix s>&sig=<HMAC-SHA256>.
// Domain-separated from the /files signatures, so one can never stand in for the other.

export const UPLOADS_PREFIX = '/uploads/';

function signature(uploadId: string, expires: number): string {
  const secret = getConfig().SIGNING_SECRET;
  if (!secret) throw new Error('SIGNING_SECRET is not set');
  return createHmac('sha256', secret).update(`upload\n${uploadId}\n${expires}`).digest('base64url');
}

/** The URL holds until the second that ends at or after `expiresAt`; the upload's own expires_at refuses a PUT past it. */
export function signUploadUrl(origin: string, uploadId: string, expiresAt: Date): string {
  const expires = Math.ceil(expiresAt.getTime() / 1000);
  const query = new URLSearchParams({ exp: String(expires), sig: signature(uploadId, expires) });
  return `${origin}${UPLOADS_PREFIX}${encodeURIComponent(uploadId)}?${query}`;
}

export type VerifiedUploadUrl = { ok: true } | { ok: false; reason: 'invalid' | 'expired' };

export function verifyUploadUrl(uploadId: string, url: URL): VerifiedUploadUrl {
  const exp = url.searchParams.get('exp') ?? '';
  if (!/^\d{1,12}$/.test(exp)) return { ok: false, reason: 'invalid' };
  const given = Buffer.from(url.searchParams.get('sig') ?? '');
  const expected = Buffer.from(signature(uploadId, Number(exp)));
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return { ok: false, reason: 'invalid' };
  if (Number(exp) * 1000 <= Date.now()) return { ok: false, reason: 'expired' };
  return { ok: true };
}
