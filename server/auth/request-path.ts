import { acceptedConnection } from './connection';

/** Paths are resolved against a base no real origin has: a result on another origin left the site. */
const BASE = 'http://dashboard.invalid';

/**
 * Where to send the signed-out visitor of the current page: the sign-in page, with the page they
 * asked for when npm start's server served it (the connection knows its target; under `next dev`
 * it is not known and the visitor lands on the dashboard's home after signing in).
 */
export function signInPathForThisRequest(): string {
  return signInPathFor(acceptedConnection()?.target ?? null);
}

/** Where to send a signed-out visitor: the sign-in page, with the page they wanted when known. */
export function signInPathFor(requested: string | null): string {
  if (!requested?.startsWith('/')) return '/signin';
  const url = new URL(requested, BASE);
  url.searchParams.delete('_rsc'); // Next's marker of a client-side navigation
  const path = `${url.pathname}${url.search}`;
  return path === '/' ? '/signin' : `/signin?callbackUrl=${encodeURIComponent(path)}`;
}

/**
 * Where to go after signing in: only same-site paths, so a crafted callbackUrl cannot send the
 * operator elsewhere. Parsed as a browser would (it reads `/\host` as `//host`), and handed back
 * as a plain path.
 */
export function safeCallbackPath(value: string | undefined): string {
  if (!value?.startsWith('/')) return '/';
  const url = new URL(value, BASE);
  const path = `${url.pathname}${url.search}${url.hash}`;
  // Removing dot segments can turn `/.//host` into `//host`: the result is checked again.
  const safe = url.origin === BASE && !/^\/[/\\]/.test(path) && new URL(path, BASE).origin === BASE;
  return safe && !url.pathname.startsWith('/signin') ? path : '/';
}
