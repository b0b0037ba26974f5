// What `npm start` does to a request before Next routes it, so that every answer under /v1 comes
// from the app's own routes, in the error envelope: Next would otherwise answer some targets and
// methods itself (a 308 redirect, a bare 500 or 400).

/** The methods Next's route handlers can be asked for. */
const ROUTED_METHODS = new Set(['GET', 'HEAD', 'OPTIONS', 'POST', 'PUT', 'DELETE', 'PATCH']);

function splitTarget(target: string): { path: string; rest: string } {
  const queryAt = target.indexOf('?');
  return queryAt === -1 ? { path: target, rest: '' } : { path: target.slice(0, queryAt), rest: target.slice(queryAt) };
}

/**
 * `/v1//text/generate` is served as `/v1/text/generate`, as nginx's merge_slashes does: Next would
 * answer it with a 308 redirect, outside the /v1 error envelope. Only an origin-form target
 * (`/path?query`) is touched, and never its query string.
 */
export function mergeSlashes(target: string): string {
  if (!target.startsWith('/')) return target;
  const { path, rest } = splitTarget(target);
  if (!path.includes('//')) return target;
  return path.replace(/\/{2,}/g, '/') + rest;
}

/**
 * A path whose percent-encoding does not decode (`/v1/%zz`, a cut UTF-8 sequence) makes Next
 * fail with a bare 500. Its `%` signs are escaped instead, so the path is routed as the literal
 * text it is, which no route has: 404 in the envelope.
 */
export function escapeMalformedPath(target: string): string {
  if (!target.startsWith('/')) return target;
  const { path, rest } = splitTarget(target);
  try {
    decodeURIComponent(path);
    return target;
  } catch {
    return path.replace(/%/g, '%25') + rest;
  }
}

/**
 * A method Next cannot route (TRACE, PROPFIND, ...) is handed on as PATCH, which no API route
 * accepts: known paths answer 405 with their `Allow` header, unknown /v1 paths 404.
 */
export function routedMethod(method: string): string {
  return ROUTED_METHODS.has(method) ? method : 'PATCH';
}

/**
 * Node keeps only the first of repeated `Authorization` headers; credentials that disagree must
 * not be settled by order. All values are handed on joined (as a proxy folding them would), which
 * no key matches: 401. Undefined when the header is not repeated.
 */
export function repeatedAuthorization(rawHeaders: string[]): string | undefined {
  const values: string[] = [];
  for (let i = 0; i < rawHeaders.length; i += 2) {
    if (rawHeaders[i]!.toLowerCase() === 'authorization') values.push(rawHeaders[i + 1]!);
  }
  return values.length > 1 ? values.join(', ') : undefined;
}

export function normalizeTarget(target: string): string {
  return escapeMalformedPath(mergeSlashes(target));
}
