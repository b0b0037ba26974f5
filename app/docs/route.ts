import { ApiReference } from '@scalar/nextjs-api-reference';
import { cameOverHttps, hashedPolicy, STRICT_TRANSPORT_SECURITY } from '@wgs/server/next';

// The human reference of /v1, rendered by Scalar from /v1/openapi.json with its script
// served by this app (no CDN: the product works offline).
const scalar = ApiReference({
  url: '/v1/openapi.json',
  cdn: '/docs/scalar.js',
  pageTitle: 'Workflow Generation Service API',
  withDefaultFonts: false,
  hideClientButton: true,
  // Every operation but the document itself needs the API key: the page opens with it selected.
  authentication: { preferredSecurityScheme: 'bearer' },
  // Hosted extras that need Scalar's cloud: off, so the page is whole offline.
  showDeveloperTools: 'never',
  agent: { disabled: true },
});

/** Scalar's page with its own policy: its script file, and its one inline script by hash. */
export async function GET(request: Request): Promise<Response> {
  const page = await scalar();
  const html = await page.text();
  const headers = new Headers(page.headers);
  headers.set('Content-Security-Policy', hashedPolicy(html));
  headers.set('Cache-Control', 'no-store'); // as every page's (CONTRACT.md §1); its script file is cached
  if (cameOverHttps(request.headers)) headers.set('Strict-Transport-Security', STRICT_TRANSPORT_SECURITY);
  return new Response(html, { status: page.status, headers });
}
