import { readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { directRouter, routeFileOf } from '@/server/http/edge/direct-routes';
import { METHODS, type RouteMethods } from '@/server/http/route-methods';
import { ROUTES } from '@/server/http/routes/registry';
import { ROUTE_FILES } from '../../scripts/lib/route-files';

// The route table (server/http/routes/registry.ts) is the one list of /v1 routes: the route files
// under app/v1 must export exactly its routes and methods, and the direct dispatcher of
// `npm start` must find each of them where Next would.

const ROOT = join(import.meta.dirname, '../..');
const CATCH_ALL = 'app/v1/[[...path]]/route.ts';

function routeFiles(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { withFileTypes: true }).flatMap((entry) => {
    const path = `${dir}/${entry.name}`;
    if (entry.isDirectory()) return routeFiles(path);
    return entry.name === 'route.ts' ? [relative(ROOT, join(ROOT, path))] : [];
  });
}

const load = (file: string) => import(/* @vite-ignore */ join(ROOT, file)) as Promise<RouteMethods>;
const tablePaths = [...new Set(ROUTES.map((route) => route.path))];

describe('the route table', () => {
  it('npm start loads every route file under app/v1 and the probes by a literal path, so the production bundle holds them', async () => {
    const files = [...routeFiles('app/v1'), 'app/healthz/route.ts', 'app/readyz/route.ts'];
    expect(Object.keys(ROUTE_FILES).sort()).toEqual(files.sort());
    for (const file of files) expect(await ROUTE_FILES[file]!(), file).toBe(await load(file));
  });

  it('has a route file under app/v1 for each of its paths, and app/v1 has no other (but the catch-all)', () => {
    const files = routeFiles('app/v1').filter((file) => file !== CATCH_ALL);
    expect(files.sort()).toEqual(tablePaths.map(routeFileOf).sort());
  });

  it.each(tablePaths)('%s: the route file serves exactly the table’s methods (HEAD with GET), each the spec’s handler', async (path) => {
    const exports = await load(routeFileOf(path));
    const tableMethods = ROUTES.filter((route) => route.path === path).map((route) => route.method as string);
    if (tableMethods.includes('GET')) tableMethods.push('HEAD');
    const served = METHODS.filter((method) => exports[method]?.route !== undefined);
    expect(served.sort()).toEqual(tableMethods.sort());
    for (const method of served) {
      const route = exports[method].route!;
      expect(route.path).toBe(path);
      expect(ROUTES).toContain(route);
    }
    // Every other method Next can route answers (405), so Next never answers for the route file.
    for (const method of METHODS) expect(typeof exports[method]).toBe('function');
  });

  it('the direct dispatcher finds each route at its path (a trailing slash and a query as Next), and every other /v1 path 404s', async () => {
    const routes = await Promise.all(tablePaths.map(async (path) => ({ path, methods: await load(routeFileOf(path)) })));
    const notFound = await load(CATCH_ALL);
    const route = directRouter(routes, notFound);
    for (const { path, method } of ROUTES) {
      const concrete = path.replace('{jobId}', 'job_1').replace('{uploadId}', 'upl_%C3%A9');
      for (const target of [concrete, `${concrete}/`, `${concrete}?a=1`]) {
        const match = route(method, target);
        expect(match?.handler.route, target).toBe(ROUTES.find((r) => r.path === path && r.method === method));
      }
    }
    expect(route('GET', '/v1/jobs/job_1')?.params).toEqual({ jobId: 'job_1' });
    expect(route('POST', '/v1/uploads/upl_%C3%A9/complete')?.params).toEqual({ uploadId: 'upl_é' });
    for (const target of ['/v1', '/v1/', '/v1/nope', '/v1/jobs', '/v1/jobs//cancel', '/v1/text/generate/extra', '/v1/Text/generate']) {
      expect(route('POST', target)?.handler, target).toBe(notFound.POST);
    }
    expect(route('GET', '/healthz')).toBeUndefined();
    expect(route('GET', '/dashboard')).toBeUndefined();
  });
});
