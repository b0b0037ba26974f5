import { NextResponse, type NextRequest } from 'next/server';
import { cameOverHttps, dashboardPolicy, newNonce, STRICT_TRANSPORT_SECURITY } from '@wgs/server/next';

// Every dashboard page gets its own script nonce and the policy naming it. Next.js reads the
// nonce from the request's Content-Security-Policy header and puts it on each script it renders
// (every page is rendered per request: see app/layout.tsx). Over https, HSTS too: as everywhere,
// whether the request came over https is told by the connection npm start's server accepted (a
// trusted proxy's X-Forwarded-Proto) or NEXTAUTH_URL, never by a header a client could send.

export function proxy(request: NextRequest) {
  const policy = dashboardPolicy(newNonce());
  const headers = new Headers(request.headers);
  headers.set('content-security-policy', policy); // replaces any a client sent
  const response = NextResponse.next({ request: { headers } });
  response.headers.set('Content-Security-Policy', policy);
  if (cameOverHttps(request.headers)) response.headers.set('Strict-Transport-Security', STRICT_TRANSPORT_SECURITY);
  return response;
}

export const config = {
  // Pages only: not the API (/v1, signed URLs, the probes, metrics), nor the API reference (its own
  // policy, app/docs), nor tRPC and next-auth (JSON), nor static files.
  matcher: [
    '/((?!(?:openai/)?v1(?:/|$)|files/|uploads/|healthz|readyz|metrics|docs(?:/|$)|api/|_next/static/|_next/image|favicon\\.ico|icon\\.svg).*)',
  ],
};
