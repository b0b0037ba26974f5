import { ApiError } from '../domain/errors';
import { newRequestId } from './request-id';
import { noReferrer, toErrorResponse } from './responses';

// The exports of a route file Next serves beside the API's own app: the signed URLs' routes
// (/files, /uploads), part of the API, so every method Next can route answers in the envelope.

export const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'] as const;
export type Method = (typeof METHODS)[number];
export type RouteParams = { params?: Promise<Record<string, string | string[]>> };
export type Handler<R extends Request = Request> = (request: R, next?: RouteParams) => Promise<Response>;

/** HEAD as GET answers it, without the body; the body is cancelled so a streamed object is closed, not leaked. */
function headOf<R extends Request>(get: Handler<R>): Handler<R> {
  return async (request, next) => {
    const response = await get(request, next);
    await response.body?.cancel().catch(() => {});
    return new Response(null, { status: response.status, headers: response.headers });
  };
}

/** The methods a route file serves (Next passes its NextRequest, a Request). */
export type RouteMethods<R extends Request = Request> = Record<Method, Handler<R>>;

/**
 * The exports of a route file: the given methods, HEAD wherever GET is (RFC 9110 §9.3.2; the server
 * sends no body for it), and 405 with `Allow` for every other.
 */
export function routeMethods<R extends Request = Request>(given: Partial<Record<Method, Handler<R>>>): RouteMethods<R> {
  const withHead: Partial<Record<Method, Handler<R>>> = given.GET && !given.HEAD ? { ...given, HEAD: headOf(given.GET) } : given;
  const allow = METHODS.filter((method) => withHead[method]).join(', ');
  const notAllowed: Handler<R> = async () =>
    toErrorResponse(new ApiError('method_not_allowed', { headers: { Allow: allow } }), newRequestId());
  return Object.fromEntries(METHODS.map((method) => [method, withHead[method] ?? notAllowed])) as RouteMethods<R>;
}

/**
 * The methods of a signed URL's route (an output or upload URL, the URL its only credential): as
 * routeMethods, and no answer lets a Referer carry the URL on.
 */
export function signedUrlMethods(given: Partial<Record<Method, Handler>>): RouteMethods {
  const methods = routeMethods(given);
  return Object.fromEntries(
    METHODS.map((method) => [method, async (request: Request, next?: RouteParams) => noReferrer(await methods[method](request, next))]),
  ) as RouteMethods;
}
