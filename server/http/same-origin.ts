import { getConfig } from '../config';
import { publicOrigin } from '../auth/forwarded';
import { forwardedHeadersTrusted } from '../auth/client-address';
import { acceptedConnection } from '../auth/connection';

// The dashboard's state-changing requests (tRPC mutations, sign-in and sign-out) come only from
// its own pages. A browser names the page's origin in `Origin` on every POST, and says
// `Sec-Fetch-Site: cross-site` for another site's: either way another site's request is 403.
// A request with neither header is not a browser's (curl, a script with the cookie already);
// the session cookie (SameSite=Lax) and next-auth's CSRF token still apply to it.

// One answer for the dashboard, the portal and the checkout form, which all refuse alike.
const MESSAGE = "Cross-site requests are refused: use this service's own pages.";

function ownHosts(request: Request): string[] {
  const config = getConfig();
  const hosts = [new URL(publicOrigin(request, undefined, forwardedHeadersTrusted(acceptedConnection()))).host];
  // The configured public URL (NEXTAUTH_URL, PUBLIC_BASE_URL) is the dashboard's own too.
  for (const url of [config.NEXTAUTH_URL, config.PUBLIC_BASE_URL]) if (url) hosts.push(new URL(url).host);
  return hosts;
}

/** Whether the request came from another site: a foreign or opaque Origin, or Sec-Fetch-Site: cross-site. */
export function isCrossSite(request: Request): boolean {
  if (request.headers.get('sec-fetch-site')?.toLowerCase() === 'cross-site') return true;
  const origin = request.headers.get('origin');
  if (origin === null) return false;
  let host: string;
  try {
    host = new URL(origin).host; // "null" (a sandboxed frame, a data: URL) does not parse: refused
  } catch {
    return true;
  }
  return !ownHosts(request).includes(host.toLowerCase());
}

/** The 403 for a cross-site POST, or null to go on. */
export function crossSiteRefusal(request: Request, json: boolean): Response | null {
  if (request.method !== 'POST' || !isCrossSite(request)) return null;
  const headers = { 'Cache-Control': 'no-store', 'Content-Type': json ? 'application/json' : 'text/plain; charset=utf-8' };
  const body = json
    ? JSON.stringify({ error: { message: MESSAGE, code: -32003, data: { code: 'FORBIDDEN', httpStatus: 403 } } })
    : `${MESSAGE}\n`;
  return new Response(body, { status: 403, headers });
}
