import type { Context, Hono } from 'hono';
import { acceptedConnection, type Connection } from '../auth/connection';
import { ApiError } from '../domain/errors';
import type { RouteHandler, RouteSpec } from '../http/route-doc';
import { newRequestId } from '../http/request-id';
import { observer, type ObservedRoute } from '../observability/observe-request';
import type { RequestRecord } from '../observability/request-record';

// A public surface (/v1, and the OpenAI-compatible one beside it) as routes of the service's Hono
// app: each route of its table at its path for its method, 405 with Allow for the path's other
// methods, 404 for every other path under its prefix, all in the surface's own error format and
// each counted, measured and logged under its route's label (server/observability).

export interface Surface {
  /** The path every route of it starts with: `/v1`. */
  prefix: string;
  /** Its route table, in the order its OpenAPI document lists the routes. */
  routes: readonly RouteSpec[];
  /** An error the app answers itself (404, 405), in the surface's format; notes its code in `record`. */
  answerError(error: ApiError, requestId: string, record: RequestRecord): Response;
  /** The 404 of a path it does not have, when it says more than the catalog's. */
  unknownPath?(method: string, path: string): ApiError;
}

/** What the server in front hands the app with each request (npm start's server: the connection). */
export type ServiceEnv = { Bindings: { connection?: Connection } | undefined };

/** A path no route has: logged as `unmatched`. */
const UNMATCHED: ObservedRoute = { label: 'unmatched', operation: 'unknown' };

/** The frame, type and referrer policies every answer of the app carries (the pages get theirs from next.config.mjs). */
const API_HEADERS: [string, string][] = [
  ['X-Frame-Options', 'DENY'],
  ['X-Content-Type-Options', 'nosniff'],
  ['Content-Security-Policy', "frame-ancestors 'none'"],
  ['Referrer-Policy', 'strict-origin'],
];

export function withApiHeaders(response: Response): Response {
  for (const [name, value] of API_HEADERS) if (!response.headers.has(name)) response.headers.set(name, value);
  return response;
}

/** The connection npm start's server handed the app, or the one it serves Next's handlers in (under --v1-through-next). */
function connectionOf(c: Context<ServiceEnv>): Connection | undefined {
  return c.env?.connection ?? acceptedConnection();
}

/** The order methods are named in an Allow header. */
const METHOD_ORDER = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'];

/** `/v1/jobs/{jobId}` in Hono's form, `/v1/jobs/:jobId`. */
const honoPath = (path: string) => path.replace(/\{(\w+)\}/g, ':$1');

function byPath(routes: readonly RouteSpec[]): Map<string, RouteSpec[]> {
  const paths = new Map<string, RouteSpec[]>();
  for (const route of routes) paths.set(route.doc.path, [...(paths.get(route.doc.path) ?? []), route]);
  return paths;
}

type Observe = ReturnType<typeof observer>;

function serve(c: Context<ServiceEnv>, observe: Observe, handle: RouteHandler): Promise<Response> {
  const request = c.req.raw;
  const call = { params: c.req.param() as Record<string, string>, connection: connectionOf(c) };
  return observe(request, async (record) => withApiHeaders(await handle(request, { ...call, record })));
}

const refusing =
  (surface: Surface, error: (request: Request) => ApiError): RouteHandler =>
  async (request, { record }) =>
    surface.answerError(error(request), newRequestId(), record);

/** Adds `surface`'s routes to `app`, with its 405s and its 404 for the rest of its prefix. */
export function mountSurface(app: Hono<ServiceEnv>, surface: Surface): void {
  for (const [path, routes] of byPath(surface.routes)) {
    if (!path.startsWith(`${surface.prefix}/`)) throw new Error(`${path} is outside ${surface.prefix}`);
    const labelled = routes.find((route) => route.doc.method === 'GET') ?? routes[0]!;
    const observe = observer({ label: path, operation: labelled.doc.operation });
    const served = routes.flatMap((route) => (route.doc.method === 'GET' ? ['GET', 'HEAD'] : [route.doc.method]));
    const methods = METHOD_ORDER.filter((method) => served.includes(method));
    for (const route of routes) app.on(route.doc.method, honoPath(path), (c) => serve(c, observe, route.handle));
    const notAllowed = refusing(surface, () => new ApiError('method_not_allowed', { headers: { Allow: methods.join(', ') } }));
    app.all(honoPath(path), (c) => serve(c, observe, notAllowed));
  }
  const unmatched = observer(UNMATCHED);
  const notFound = refusing(
    surface,
    (request) => surface.unknownPath?.(request.method, new URL(request.url).pathname) ?? new ApiError('not_found'),
  );
  for (const path of [surface.prefix, `${surface.prefix}/*`]) app.all(path, (c) => serve(c, unmatched, notFound));
}
