import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { createDirectDispatch, type DirectDispatch } from '../../server/http/edge/direct-dispatch';
import { directRouter, routeFileOf, type DirectRoute } from '../../server/http/edge/direct-routes';
import type { RouteMethods } from '../../server/http/route-methods';
import { ROUTES } from '../../server/http/routes/registry';
import { ROUTE_FILES } from './route-files';

// What `npm start` serves without Next's router: every route of the table (registry.ts) through
// the handlers its route file in app/v1 exports, the /v1 catch-all's for every other /v1 path, and
// the load balancers' probes. The route files themselves are imported (route-files.ts), so these
// are the functions Next would call.

/** The probes beside the API, served the same way. */
const PROBES = ['/healthz', '/readyz'];
const CATCH_ALL = 'app/v1/[[...path]]/route.ts';

function importFile(file: string): Promise<Partial<RouteMethods>> {
  const load = ROUTE_FILES[file];
  if (!load) throw new Error(`${file} is not in scripts/lib/route-files.ts`);
  return load();
}

type HeaderRule = { source: string; headers: { key: string; value: string }[] };

/**
 * The headers next.config.mjs has Next add to these paths' answers, matched as Next matches them;
 * one set for every direct path (a rule that tells them apart would need a per-route set: refused).
 */
async function configuredHeaders(root: string, paths: string[]): Promise<[string, string][]> {
  const config = (await import(pathToFileURL(join(root, 'next.config.mjs')).href)) as {
    default: { headers?: () => Promise<HeaderRule[]> };
  };
  const { getPathMatch } = (await import('next/dist/shared/lib/router/utils/path-match.js')) as unknown as {
    getPathMatch: (source: string, options: object) => (path: string) => unknown;
  };
  const rules = (await config.default.headers?.()) ?? [];
  const setFor = (path: string) =>
    rules
      .filter((rule) => getPathMatch(rule.source, { strict: true, removeUnnamedParams: true })(path) !== false)
      .flatMap((rule) => rule.headers.map(({ key, value }): [string, string] => [key, value]));
  const sets = paths.map((path) => setFor(path.replace(/\{\w+\}/g, 'x')));
  if (sets.some((set) => JSON.stringify(set) !== JSON.stringify(sets[0]))) {
    throw new Error('next.config.mjs adds different headers to different /v1 routes: the direct dispatcher has one set');
  }
  return sets[0] ?? [];
}

/** The direct dispatcher of `npm start`; `root` holds next.config.mjs, whose headers it adds. */
export async function loadDirectDispatch(root: string): Promise<DirectDispatch> {
  const paths = [...new Set(ROUTES.map((route) => route.path)), ...PROBES];
  const routes: DirectRoute[] = await Promise.all(paths.map(async (path) => ({ path, methods: await importFile(routeFileOf(path)) })));
  const notFound = await importFile(CATCH_ALL);
  return createDirectDispatch(directRouter(routes, notFound), await configuredHeaders(root, [...paths, '/v1/unknown']));
}
