import { Hono } from 'hono';
import { ApiError } from '../domain/errors';
import { newRequestId } from '../http/request-id';
import { toErrorResponse } from '../http/responses';
import type { Handler } from '../http/route-methods';
import { outputUrlMethods } from '../http/serve-signed-object';
import { uploadUrlMethods } from '../http/upload-put';
import { serveReadiness } from '../instance/readiness';
import { mountSurface, withApiHeaders, type ServiceEnv, type Surface } from './surface';
import { openaiSurface } from './openai';
import { v1Surface } from './v1';

// The one app that serves the public surfaces, the signed URLs and the load balancers' probes:
// `npm start`'s server hands it every request of these paths (server/http/edge), and under
// `next dev` and on Vercel one catch-all route file per surface prefix (app/v1/[[...route]]) and
// the probes' route files hand it theirs (the signed URLs' route files call the same methods).
// Both ways run the same routes, checks and answers.

/**
 * The surfaces served, each under its own prefix. Another surface is its table beside v1.ts, its
 * entry here, the catch-all route file through which Next hands it requests
 * (app/<prefix>/[[...route]]/route.ts), and its prefix left out of proxy.ts's matcher and
 * next.config.mjs's header rules (pages' policies, which the app sets on its own answers).
 */
export const SURFACES: readonly Surface[] = [v1Surface, openaiSurface];

/** Liveness for load balancers and tests; also the "trivial route handler" of `npm run bench`. */
async function liveness(): Promise<Response> {
  return Response.json({ status: 'ok' }, { headers: { 'Cache-Control': 'no-store' } });
}

/** The probes beside the API: GET (and HEAD), 405 in the envelope for every other method. */
const PROBES: Record<string, () => Promise<Response>> = { '/healthz': liveness, '/readyz': serveReadiness };

/**
 * The path a route is matched on: the request's own, undecoded (a percent-encoded letter names no
 * route, as the idempotency scope is the path as sent; npm start's edge decodes those first,
 * normalize-request.ts), one trailing slash dropped (Next serves `/v1/key/` as `/v1/key`).
 */
function routedPath(request: Request): string {
  const url = request.url;
  const start = url.indexOf('/', url.indexOf('://') + 3);
  const queryAt = url.indexOf('?', start);
  const path = start === -1 ? '/' : url.slice(start, queryAt === -1 ? undefined : queryAt);
  return path.length > 1 && path.endsWith('/') ? path.slice(0, -1) : path;
}

/**
 * The signed URLs, served here as Next's route files (app/files, app/uploads) serve them: output
 * URLs with their length, which Next drops from a streamed answer (by it a client knows the size
 * and that all came); upload URLs so that the rest of a body they refuse is dropped within the
 * edge's limits (server/http/edge/unread-body.ts), where Next's body stream held a refused upload
 * of 100 MiB a minute. Hono hands HEAD to a GET route: the request's own method picks the handler
 * (every other than the route's own: 405 with Allow), which closes an object HEAD leaves unread.
 */
const OUTPUT_URLS = '/files/';
const UPLOAD_URLS = '/uploads/';
const SIGNED_URL_ROUTES: [pattern: string, methods: Record<string, Handler>][] = [
  [`${OUTPUT_URLS}*`, outputUrlMethods],
  [`${UPLOAD_URLS}:uploadId`, uploadUrlMethods],
];

function mountSignedUrls(app: Hono<ServiceEnv>): void {
  for (const [pattern, methods] of SIGNED_URL_ROUTES) {
    app.all(pattern, async (c) => {
      const handle = methods[c.req.raw.method] ?? methods.PATCH!;
      return withApiHeaders(await handle(c.req.raw, { params: Promise.resolve(c.req.param()) }));
    });
  }
}

function mountProbes(app: Hono<ServiceEnv>): void {
  for (const [path, probe] of Object.entries(PROBES)) {
    app.get(path, async () => withApiHeaders(await probe()));
    const refused = () => new ApiError('method_not_allowed', { headers: { Allow: 'GET, HEAD' } });
    app.all(path, async () => withApiHeaders(toErrorResponse(refused(), newRequestId())));
  }
}

/** A handler that threw instead of answering: the generic 500 (toErrorResponse logs it). */
const internalError = (error: Error) => withApiHeaders(toErrorResponse(error, newRequestId()));

export function createServiceApp(surfaces: readonly Surface[]): Hono<ServiceEnv> {
  const app = new Hono<ServiceEnv>({ getPath: routedPath });
  for (const surface of surfaces) mountSurface(app, surface);
  mountProbes(app);
  mountSignedUrls(app);
  app.notFound(() => withApiHeaders(toErrorResponse(new ApiError('not_found'), newRequestId())));
  app.onError(internalError);
  return app;
}

export const serviceApp = createServiceApp(SURFACES);

/** A request target's path, without its query. */
function pathOf(target: string): string {
  const queryAt = target.indexOf('?');
  return queryAt === -1 ? target : target.slice(0, queryAt);
}

/** The surface whose prefix a path is, or is under (`/v1/key`, and `/v1%5Ckey`, its 404). */
const surfaceOf = (path: string): Surface | undefined =>
  SURFACES.find(({ prefix }) => path === prefix || path.startsWith(`${prefix}/`) || /^%5c/i.test(path.slice(prefix.length)));

/** Whether the app serves a request target (path and query): a surface's path, a signed URL's, or a probe's. */
export function servesTarget(target: string): boolean {
  const path = pathOf(target);
  if (surfaceOf(path) || path.startsWith(OUTPUT_URLS) || path.startsWith(UPLOAD_URLS)) return true;
  return Object.hasOwn(PROBES, path) || (path.endsWith('/') && Object.hasOwn(PROBES, path.slice(0, -1)));
}

/**
 * An error npm start's server answers itself, before any route sees the request (a transfer coding
 * it does not decode), in the error format of the surface whose path the target is (OpenAI's under
 * /openai/v1); /v1's envelope elsewhere.
 */
export function answerEdgeError(target: string, error: ApiError): Response {
  const surface = surfaceOf(pathOf(target));
  return surface ? surface.answerError(error, newRequestId(), {}) : toErrorResponse(error, newRequestId());
}

/** The prefixes of the surfaces, whose every path and method the app answers (404, 405). */
export const SURFACE_PREFIXES: readonly string[] = SURFACES.map((surface) => surface.prefix);
