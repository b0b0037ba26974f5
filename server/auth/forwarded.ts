import { forwardedHeadersTrusted } from '../auth/client-address';
import { getConfig } from '../config';

// What a proxy in front says about the request (X-Forwarded-Proto), believed only with
// a trusted proxy (TRUST_PROXY): without one, anyone can send these headers.

type HeaderSource = { get(name: string): string | null };

/** Whether the client reached the service over https: a trusted proxy says so, or NEXTAUTH_URL is https. */
export function cameOverHttps(headers: HeaderSource): boolean {
  const config = getConfig();
  if (config.NEXTAUTH_URL?.startsWith('https://')) return true;
  if (!forwardedHeadersTrusted(headers)) return false;
  return headers.get('x-forwarded-proto')?.split(',')[0]?.trim().toLowerCase() === 'https';
}
