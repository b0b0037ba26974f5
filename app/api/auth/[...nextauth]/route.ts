import NextAuth from 'next-auth';
import { authOptionsFor, cameOverHttps, crossSiteRefusal, isParseableCallbackUrl } from '@wgs/server/next';

// Secure cookies for a request that came over https (auth-options.ts), whatever NEXTAUTH_URL says.
const secureNextAuth = NextAuth(authOptionsFor(true));
const plainNextAuth = NextAuth(authOptionsFor(false));
type Context = { params: Promise<{ nextauth: string[] }> };

const plain = (status: number, text: string, headers: Record<string, string> = {}) =>
  new Response(`${text}\n`, { status, headers: { 'Content-Type': 'text/plain; charset=utf-8', 'Cache-Control': 'no-store', ...headers } });

/** An error's name as next-auth gives it (`CredentialsSignin`, `SessionRequired`, ...). */
const NEXT_AUTH_ERROR = /^[A-Za-z0-9_-]{1,64}$/;

/** The callbackUrl a request gives next-auth (query, or form field of a POST), if any. */
async function callbackUrlOf(request: Request, url: URL): Promise<string | undefined> {
  const query = url.searchParams.get('callbackUrl');
  if (query !== null) return query;
  if (request.method !== 'POST' || !isPlainForm(request.headers.get('content-type'))) return undefined;
  const form = new URLSearchParams(await request.clone().text()); // bodies here are under 1 MiB (npm start)
  return form.get('callbackUrl') ?? undefined;
}

/** A form's Content-Type (any case, any parameters), with nothing in it that next-auth would read as JSON. */
function isPlainForm(contentType: string | null): boolean {
  return (
    contentType !== null &&
    contentType.split(';')[0]!.trim().toLowerCase() === 'application/x-www-form-urlencoded' &&
    !contentType.includes('application/json')
  );
}

/**
 * next-auth's routes, less what it answers badly: `_log` (its client logger's endpoint, which
 * takes log lines from anyone; the dashboard does not use it), a GET of the credentials callback
 * a callbackUrl it cannot parse (both 500s naming next-auth's internals) and an error name that is no header value.
 */
async function handler(request: Request, context: Context): Promise<Response> {
  const url = new URL(request.url);
  const action = url.pathname.replace(/^\/api\/auth\/?/, '');
  if (action === '_log' || action.startsWith('_log/')) return plain(404, 'Not Found');
  if (request.method === 'GET' && /^callback\/credentials\/?$/.test(action)) return plain(405, 'Method Not Allowed', { Allow: 'POST' });
  // Sign-in and sign-out are POSTs: another site's is refused (login CSRF, forced sign-out).
  const refused = crossSiteRefusal(request, false);
  if (refused) return refused;
  // next-auth would also parse JSON, whole and unchecked (1 MiB nested 500,000 deep: 150 ms of the
  // server's CPU, from anyone), and takes a body for JSON when its Content-Type merely contains
  // `application/json`; its forms are all this dashboard sends.
  if (request.method === 'POST' && !isPlainForm(request.headers.get('content-type'))) {
    return plain(415, 'Sign-in and sign-out take a form: Content-Type application/x-www-form-urlencoded.');
  }
  // next-auth puts its error page's `error`, decoded, into a Location header: one that is no header value was a
  // 500, and none was `error=undefined`.
  if (/^error\/?$/.test(action) && !NEXT_AUTH_ERROR.test(url.searchParams.get('error') ?? '')) {
    return new Response(null, { status: 302, headers: { Location: '/signin?error=Default', 'Cache-Control': 'no-store' } });
  }
  const callbackUrl = await callbackUrlOf(request, url);
  if (callbackUrl !== undefined && !isParseableCallbackUrl(callbackUrl)) return plain(400, 'callbackUrl must be a path or an http(s) URL.');
  return (cameOverHttps(request.headers) ? secureNextAuth : plainNextAuth)(request, context);
}

export { handler as GET, handler as POST };
