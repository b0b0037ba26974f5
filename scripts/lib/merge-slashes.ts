/**
 * `/v1//text/generate` is served as `/v1/text/generate`, as nginx's merge_slashes does: Next would
 * answer it with a 308 redirect, outside the /v1 error envelope. Only an origin-form target
 * (`/path?query`) is touched, and never its query string.
 */
export function mergeSlashes(target: string): string {
  if (!target.startsWith('/')) return target;
  const queryAt = target.indexOf('?');
  const path = queryAt === -1 ? target : target.slice(0, queryAt);
  if (!path.includes('//')) return target;
  return path.replace(/\/{2,}/g, '/') + (queryAt === -1 ? '' : target.slice(queryAt));
}
