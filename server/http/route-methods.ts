import { ApiError } from '../domain/errors';
import { observed, type ObservedRoute } from '../observability/observe-request';
import { newRequestId } from './request-id';
import type { RouteDoc } from './route-doc';
import { toErrorResponse } from './responses';

// The exports of an app/v1 route file: every method Next can route, each counted, measured and
// logged under its route's label (server/observability) — the label and the operation come from
// the route's spec, prepared once here, not worked out from the path on every request.

export const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'] as const;
export type Method = (typeof METHODS)[number];
export type RouteParams = { params?: Promise<Record<string, string | string[]>> };
export type Handler = (request: Request, next?: RouteParams) => Promise<Response>;

/** What answers a path no route has: logged as `unmatched`. */
export const UNMATCHED: ObservedRoute = { label: 'unmatched', operation: 'unknown' };

/** HEAD as GET answers it, without the body; the body is cancelled so a streamed object is closed, not leaked. */
function headOf(get: Handler): Handler {
  return async (request, next) => {
    const response = await get(request, next);
    await response.body?.cancel().catch(() => {});
    return new Response(null, { status: response.status, headers: response.headers });
  };
}

/** The methods a route file serves: each handler carries its RouteDoc (HEAD the GET's). */
export type RouteMethods = Record<Method, Handler & { route?: RouteDoc }>;

/**
 * The exports of a route file: the given methods, HEAD wherever GET is (RFC 9110 §9.3.2; the server
 * sends no body for it), and 405 with `Allow` for every other. A /v1 route's handlers are its
 * specs' (each carries its RouteDoc) and are observed under its label; the signed URLs' routes
 * (/files, /uploads) give plain handlers and are not.
 */
export function routeMethods(given: Partial<Record<Method, Handler & { route?: RouteDoc }>>): RouteMethods {
  const route = given.GET?.route ?? given.POST?.route;
  const withHead: Partial<Record<Method, Handler & { route?: RouteDoc }>> =
    given.GET && !given.HEAD ? { ...given, HEAD: Object.assign(headOf(given.GET), { route: given.GET.route }) } : given;
  const allow = METHODS.filter((method) => withHead[method]).join(', ');
  const notAllowed: Handler = async () =>
    toErrorResponse(new ApiError('method_not_allowed', { headers: { Allow: allow } }), newRequestId());
  const observedRoute: ObservedRoute | undefined = route && { label: route.path, operation: route.operation };
  const watch = (handler: Handler) => (observedRoute ? observed(handler, observedRoute) : handler);
  const refused = watch(notAllowed);
  const entries = METHODS.map((method) => {
    const handler = withHead[method];
    return [method, handler ? Object.assign(watch(handler), { route: handler.route }) : refused];
  });
  return Object.fromEntries(entries) as RouteMethods;
}

/** Every method on an unknown /v1 path. */
export function notFoundMethods(): RouteMethods {
  const notFound: Handler = observed(async () => toErrorResponse(new ApiError('not_found'), newRequestId()), UNMATCHED);
  return Object.fromEntries(METHODS.map((method) => [method, notFound])) as RouteMethods;
}
