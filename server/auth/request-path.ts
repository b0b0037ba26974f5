/**
 * The path and query a dashboard request asked for, set by `npm start` (replacing anything a
 * client sent), so a signed-out visitor is sent back there after signing in.
 */
export const REQUEST_PATH_HEADER = 'x-wgs-request-path';

/** Where to send a signed-out visitor: the sign-in page, with the page they wanted when known. */
export function signInPathFor(requested: string | null): string {
  if (!requested?.startsWith('/')) return '/signin';
  const url = new URL(requested, 'http://dashboard.invalid');
  url.searchParams.delete('_rsc'); // Next's marker of a client-side navigation
  const path = `${url.pathname}${url.search}`;
  return path === '/' ? '/signin' : `/signin?callbackUrl=${encodeURIComponent(path)}`;
}
