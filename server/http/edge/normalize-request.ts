import { isParseableCallbackUrl } from '../../auth/callback-url';

// What `npm start` does to a request before Next routes it, so that every answer of the API
// (/v1, upload and output URLs) comes from the app's own routes, in the error envelope: Next would
// otherwise answer some targets and methods itself (a 308 redirect, a bare 500 or 400).

/** The methods Next's route handlers can be asked for. */
const ROUTED_METHODS = new Set(['GET', 'HEAD', 'OPTIONS', 'POST', 'PUT', 'DELETE', 'PATCH']);
/** The signed URLs' paths (upload and output URLs), part of the API beside its surfaces. */
const SIGNED_URL_PATHS = ['/uploads/', '/files/'];
/** The scheme and authority of an absolute-form target (`http://user@host:port`); group 1 is the host. */
const AUTHORITY = /^[A-Za-z][A-Za-z0-9+.-]*:\/\/(?:[^/?#@]*@)?([^/?#]*)/;

function splitTarget(target: string): { path: string; rest: string } {
  const queryAt = target.indexOf('?');
  return queryAt === -1 ? { path: target, rest: '' } : { path: target.slice(0, queryAt), rest: target.slice(queryAt) };
}

/**
 * `/v1//text/generate` is served as `/v1/text/generate`, as nginx's merge_slashes does: Next would
 * answer it with a 308 redirect, outside the /v1 error envelope. Only the path of an origin-form
 * target (`/path?query`) is touched, never its query string.
 */
export function mergeSlashes(target: string): string {
  if (!target.startsWith('/')) return target;
  const { path, rest } = splitTarget(target);
  if (!path.includes('//')) return target;
  return path.replace(/\/{2,}/g, '/') + rest;
}

/** A percent-encoded unreserved character (RFC 3986 §2.3: letters, digits, `-._~`), which names the same as the character. */
const ENCODED_UNRESERVED = /%(?:[46][1-9A-F]|[57][0-9A]|3[0-9]|2[DE]|5F|7E)/gi;

/**
 * `/v1/jobs/job%5Fabc/cancel` is `/v1/jobs/job_abc/cancel` (RFC 3986 §6.2.2.2): the route decodes
 * its parameters, so the idempotency scope, which is the path, must be this path too, or one call
 * would be two. Reserved characters (`%2F`) keep their encoding: decoded, they would mean another path.
 */
export function decodeUnreserved(target: string): string {
  if (!target.startsWith('/')) return target;
  const { path, rest } = splitTarget(target);
  if (!path.includes('%') || !decodes(path)) return target; // `%%35%46` is not `%5F`: escapeMalformedPath makes it literal
  return path.replace(ENCODED_UNRESERVED, (escape) => String.fromCharCode(parseInt(escape.slice(1), 16))) + rest;
}

/** A `.` or `..` segment, its dots as they are or percent-encoded (`%2e`): what Next removes before it routes. */
const DOT_SEGMENT = /(?:^|\/)(?:\.|%2e){1,2}(?:\/|$)/i;

/**
 * `/x/../v1/key` is `/v1/key` (RFC 3986 §5.2.4's remove_dot_segments, `%2e` read as a dot, as Next
 * reads it): tested before the dots are gone, an API path would not be seen as one and Next would
 * route it past the edge's handling of the API. Only the path is touched, never the query string.
 */
export function removeDotSegments(target: string): string {
  if (!target.startsWith('/')) return target;
  const { path, rest } = splitTarget(target);
  if (!DOT_SEGMENT.test(path)) return target;
  const segments = path.slice(1).split('/');
  const kept: string[] = [];
  for (const [index, segment] of segments.entries()) {
    const dots = segment.replace(/%2e/gi, '.');
    const last = index === segments.length - 1;
    if (dots === '..') kept.pop();
    if (dots === '.' || dots === '..') {
      if (last) kept.push(''); // `/a/b/..` is `/a/`
    } else kept.push(segment);
  }
  return `/${kept.join('/')}${rest}`;
}

/**
 * A path whose percent-encoding does not decode (`/v1/%zz`, a cut UTF-8 sequence) makes Next
 * fail with a bare 500. Its `%` signs are escaped instead, so the path is routed as the literal
 * text it is, which no route has: 404 in the envelope. So is a backslash (not allowed in a path,
 * RFC 3986 §3.3), which Next reads as `/`, as WHATWG URLs do, and answers with a 308 redirect.
 */
export function escapeMalformedPath(target: string): string {
  if (!target.startsWith('/')) return target;
  const { path, rest } = splitTarget(target);
  const malformed = path.includes('%') && !decodes(path);
  if (!malformed && !path.includes('\\')) return target;
  return (malformed ? path.replace(/%/g, '%25') : path).replace(/\\/g, '%5C') + rest;
}

/** Whether a path's percent-encoding decodes (every `%` starts an escape of UTF-8). */
function decodes(path: string): boolean {
  try {
    decodeURIComponent(path);
    return true;
  } catch {
    return false;
  }
}

/**
 * An absolute-form target (`GET http://host/v1/... HTTP/1.1`, as sent to proxies) in origin form,
 * with the host it names: RFC 9112 §3.2.2 has the server use that host rather than the Host
 * header. Next would answer the absolute form with a redirect of its own.
 */
export function toOriginForm(target: string): { target: string; host?: string } {
  if (target.startsWith('/')) return { target }; // origin form, nearly every request
  const authority = AUTHORITY.exec(target);
  if (!authority) return { target };
  const rest = target.slice(authority[0].length);
  return { target: rest.startsWith('/') ? rest : `/${rest}`, host: authority[1] || undefined }; // `http://host?x=1` is `/?x=1`
}

/**
 * Whether a target is one of the API's own paths, whose every method is answered in its error
 * envelope (405 or 404): a surface's (its prefix, from the route table: `/v1`) or a signed URL's.
 */
export function apiPaths(surfacePrefixes: readonly string[]): (target: string) => boolean {
  const escaped = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const surfaces = surfacePrefixes.map((prefix) => `${escaped(prefix)}(?:[/?]|%5[Cc]|$)`); // `/v1\key` is `/v1%5Ckey`: the API's 404
  const pattern = new RegExp(`^(?:${[...surfaces, ...SIGNED_URL_PATHS.map(escaped)].join('|')})`);
  return (target) => pattern.test(target);
}

/** All of the above, on an origin-form target. */
export function normalizeTarget(target: string): string {
  // Nearly every target has nothing any of them changes: it is passed on without being split four times.
  if (!target.includes('//') && !target.includes('%') && !target.includes('/.') && !target.includes('\\')) return target;
  return escapeMalformedPath(removeDotSegments(decodeUnreserved(mergeSlashes(target))));
}

/**
 * The method to hand on, or undefined when `npm start` must answer 405 itself. A method Next
 * cannot route (TRACE, PROPFIND, ...) on an API path (`api`) goes on as PATCH, which no API route
 * accepts: known paths answer 405 with their `Allow` header, unknown /v1 paths 404.
 */
export function routedMethod(method: string, api: boolean): string | undefined {
  if (ROUTED_METHODS.has(method)) return method;
  return api ? 'PATCH' : undefined;
}

/** Headers Node keeps only the first of when repeated, and whose order must not settle a request. */
const SINGLE_VALUE_HEADERS = ['authorization', 'content-type', 'host'] as const;

/**
 * Node keeps only the first of a repeated Authorization, Content-Type or Host; values that
 * disagree must not be settled by their order. For each such header that is repeated, all its
 * values joined (as a proxy folding them would), which no key and no accepted media type matches:
 * 401 or 415. A repeated Host is refused outright (400, RFC 9112 §3.2).
 */
export function repeatedHeaders(rawHeaders: string[]): Partial<Record<(typeof SINGLE_VALUE_HEADERS)[number], string>> {
  const values: Partial<Record<(typeof SINGLE_VALUE_HEADERS)[number], string[]>> = {};
  for (let i = 0; i < rawHeaders.length; i += 2) {
    const name = rawHeaders[i]!.toLowerCase() as (typeof SINGLE_VALUE_HEADERS)[number];
    if (SINGLE_VALUE_HEADERS.includes(name)) (values[name] ??= []).push(rawHeaders[i + 1]!);
  }
  const repeated: Partial<Record<(typeof SINGLE_VALUE_HEADERS)[number], string>> = {};
  for (const name of SINGLE_VALUE_HEADERS) if ((values[name]?.length ?? 0) > 1) repeated[name] = values[name]!.join(', ');
  return repeated;
}

/**
 * A transfer coding other than chunked that a request's body is said to be sent in (`gzip, chunked`):
 * Node undoes only the chunking, so the body would be read as if it had none (RFC 9112 §6.1).
 */
export function unsupportedTransferCoding(header: string | undefined): string | undefined {
  return header
    ?.split(',')
    .map((coding) => coding.trim().toLowerCase())
    .find((coding) => coding !== 'chunked' && coding !== '');
}

/** The largest body a request outside the API may send (sign-in forms, dashboard calls are small). */
export const DASHBOARD_BODY_LIMIT = 1024 * 1024;

/**
 * Why a request outside the API's own routes is refused before Next reads its body, if it is: Next
 * and next-auth read such a body whole into memory, so a large one (sent by anyone, signed in or
 * not) would exhaust the heap. It must declare its length (411 otherwise) and stay under 1 MiB (413).
 * The API's routes stream their bodies under their own limits.
 */
export function dashboardBodyRefusal(
  api: boolean,
  headers: { 'content-length'?: string; 'transfer-encoding'?: string },
): { status: 411 | 413; message: string } | undefined {
  if (api) return undefined;
  if (headers['transfer-encoding'] !== undefined) {
    return { status: 411, message: 'A request body outside /v1 needs a Content-Length (no chunked transfer).' };
  }
  if (Number(headers['content-length'] ?? 0) > DASHBOARD_BODY_LIMIT) {
    return { status: 413, message: 'The request body is larger than 1 MiB.' };
  }
  return undefined;
}

/**
 * Request headers Next.js acts on itself: React Server Component and prefetch requests (`RSC`,
 * `Next-Router-*`, `Next-Url`, `Purpose`), server actions (`Next-Action`), middleware and internal
 * routing signals (`X-Middleware-*`, `X-Invoke-*`, `X-Matched-Path`, `X-Now-Route-Matches`),
 * revalidation and deployment ones. None means anything to the API, and Next would answer some of
 * them before the route runs: `RSC: 1` with a 307 to `?_rsc`, `X-Middleware-Prefetch: 1` with
 * `200 {}`, skipping authentication and the envelope.
 */
const FRAMEWORK_HEADER =
  /^(?:rsc|purpose|next-.+|x-next-.+|x-nextjs-.+|x-middleware-.+|x-invoke-.+|x-action-.+|x-matched-path|x-now-route-matches|x-prerender-revalidate.*|x-deployment-id|x-vercel-.+)$/;

/** On the API's own paths (`api`), removes the headers above (Node's lower-case names), so the route answers. */
export function dropFrameworkHeaders(api: boolean, headers: Record<string, unknown>): void {
  if (!api) return;
  for (const name of Object.keys(headers)) if (FRAMEWORK_HEADER.test(name)) delete headers[name];
}

/** Next's own Vary entries (`RSC`, `Next-Router-State-Tree`, ...): keys of its router's cache, not the API's. */
const FRAMEWORK_VARY = /^(?:rsc|next-.+)$/i;

/** The Vary an API answer keeps once Next's own entries are gone; undefined when none is left. */
export function apiVary(vary: string | readonly string[]): string | undefined {
  const kept = [vary]
    .flat()
    .flatMap((value) => value.split(','))
    .map((name) => name.trim())
    .filter((name) => name !== '' && !FRAMEWORK_VARY.test(name));
  return kept.length > 0 ? kept.join(', ') : undefined;
}

/** next-auth's cookie remembering where to go after sign-in (the `__Secure-` name on https). */
const CALLBACK_URL_COOKIE = /^(?:__Secure-)?next-auth\.callback-url$/;

function parsesAsCallbackUrl(encoded: string): boolean {
  try {
    return isParseableCallbackUrl(decodeURIComponent(encoded));
  } catch {
    return false; // not even percent-decodable
  }
}

/**
 * The Cookie header without a next-auth callback-url cookie that does not parse as a URL. next-auth
 * checks that cookie on every request and answers 500 when it does not parse, so one planted by
 * another origin of the same site (another port, a sibling subdomain) would lock operators out
 * of the whole dashboard, sign-in included. Undefined when nothing changes.
 */
export function withoutUnparseableCallbackCookie(cookieHeader: string | undefined): string | undefined {
  if (!cookieHeader || !cookieHeader.includes('callback-url')) return undefined;
  const pairs = cookieHeader.split(';');
  const kept = pairs.filter((pair) => {
    const at = pair.indexOf('=');
    const name = (at === -1 ? pair : pair.slice(0, at)).trim();
    return !CALLBACK_URL_COOKIE.test(name) || parsesAsCallbackUrl(pair.slice(at + 1).trim());
  });
  return kept.length === pairs.length ? undefined : kept.join(';');
}
