import type { RouteMethods } from '../route-methods';

// The route table as `npm start` dispatches it: each route's path (`/v1/jobs/{jobId}`, in the
// OpenAPI form of server/http/routes/registry.ts) matched against a request's path, giving the
// handlers its app route file exports and the path's parameters, as Next's router would.

/** A route's path and what its route file exports. */
export interface DirectRoute {
  path: string;
  methods: Partial<RouteMethods>;
}

/** The route file that serves a route's path: `/v1/jobs/{jobId}` is `app/v1/jobs/[jobId]/route.ts`. */
export function routeFileOf(path: string): string {
  return `app${path.replace(/\{(\w+)\}/g, '[$1]')}/route.ts`;
}

export interface RouteMatch {
  handler: RouteMethods[keyof RouteMethods];
  params: Record<string, string>;
}

interface Compiled {
  /** Each segment: a literal, or the name of a parameter (`{jobId}` is `jobId`). */
  segments: { literal?: string; param?: string }[];
  methods: Partial<RouteMethods>;
}

function compile(route: DirectRoute): Compiled {
  const segments = route.path
    .split('/')
    .slice(1)
    .map((segment) => (/^\{\w+\}$/.test(segment) ? { param: segment.slice(1, -1) } : { literal: segment }));
  return { segments, methods: route.methods };
}

/** The path's segments; `/v1/text/generate/` is `/v1/text/generate` (Next serves both alike). */
function segmentsOf(target: string): string[] {
  const queryAt = target.indexOf('?');
  let path = queryAt === -1 ? target : target.slice(0, queryAt);
  if (path.length > 1 && path.endsWith('/')) path = path.slice(0, -1);
  return path.split('/').slice(1);
}

function paramsOf(route: Compiled, parts: string[]): Record<string, string> | undefined {
  const params: Record<string, string> = {};
  for (let i = 0; i < parts.length; i += 1) {
    const segment = route.segments[i]!;
    if (segment.literal !== undefined) {
      if (segment.literal !== parts[i]) return undefined;
    } else {
      if (parts[i] === '') return undefined;
      params[segment.param!] = decodeURIComponent(parts[i]!); // the edge escaped what does not decode
    }
  }
  return params;
}

/**
 * A matcher over `routes`: the route whose path the target names, with the handler of `method`;
 * a /v1 path no route has gets `notFound`'s. Undefined for a path outside them all.
 */
export function directRouter(routes: DirectRoute[], notFound: Partial<RouteMethods>) {
  const compiled = routes.map(compile);
  return (method: string, target: string): RouteMatch | undefined => {
    const parts = segmentsOf(target);
    for (const route of compiled) {
      if (route.segments.length !== parts.length) continue;
      const params = paramsOf(route, parts);
      const handler = params && route.methods[method as keyof RouteMethods];
      if (handler) return { handler, params: params! };
    }
    if (parts[0] !== 'v1') return undefined;
    const handler = notFound[method as keyof RouteMethods];
    return handler && { handler, params: { path: parts.slice(1).join('/') } };
  };
}
