import { forwardedHeadersTrusted } from '../auth/client-address';
import { getConfig } from '../config';
import { acceptedConnection, type Connection } from './connection';

// What a proxy in front says about the request (X-Forwarded-Proto), believed only with
// a trusted proxy (TRUST_PROXY): without one, anyone can send these headers.

type HeaderSource = { get(name: string): string | null };

/**
 * Whether the client reached the service over https: a trusted proxy says so, or NEXTAUTH_URL is
 * https. `connection` defaults to the one npm start's server serves the current Next request in.
 */
export function cameOverHttps(headers: HeaderSource, connection: Connection | undefined = acceptedConnection()): boolean {
  const config = getConfig();
  if (config.NEXTAUTH_URL?.startsWith('https://')) return true;
  if (!forwardedHeadersTrusted(connection)) return false;
  return headers.get('x-forwarded-proto')?.split(',')[0]?.trim().toLowerCase() === 'https';
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
