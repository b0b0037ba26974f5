import { cameOverHttps } from './forwarded';

// The portal session's cookie: the random token only (the database keeps its hash). httpOnly,
// SameSite=Lax (sent when Stripe's checkout navigates back, never with another site's POST),
// Secure with the __Host- prefix over https, and an hour long like the session itself.

type HeaderSource = { get(name: string): string | null };

const PLAIN_NAME = 'wgs_portal';
const SECURE_NAME = '__Host-wgs_portal';

export function portalCookieName(headers: HeaderSource): string {
  return cameOverHttps(headers) ? SECURE_NAME : PLAIN_NAME;
}

export function portalCookieOptions(headers: HeaderSource, expires: Date) {
  return { httpOnly: true, secure: cameOverHttps(headers), sameSite: 'lax' as const, path: '/', expires };
}

/** The token a request's cookie holds, under the name its transport uses. */
export function portalToken(headers: HeaderSource, cookies: { get(name: string): { value: string } | undefined }): string | undefined {
  return cookies.get(portalCookieName(headers))?.value;
}
