import { describe, expect, it } from 'vitest';
import type { RouteSpec } from '@/server/http/route-doc';
import { toErrorResponse } from '@/server/http/responses';
import { createServiceApp, servesTarget } from '@/server/surfaces/service-app';
import { V1_ROUTES } from '@/server/surfaces/v1';

// The route table of /v1 (server/surfaces/v1.ts) is the one list of its routes: the service's app
// serves exactly its routes and methods, each at its path as Next would (a trailing slash, a
// query), HEAD wherever GET is, 405 with Allow for every other method of a known path, and 404 for
// every other path under /v1. The table's own handlers are stood in for, so no database is needed.

/** The table's routes, each answering which route it is. */
const stood: RouteSpec[] = V1_ROUTES.map(({ doc }) => ({
  doc,
  handle: async (_request, call) => Response.json({ route: `${doc.method} ${doc.path}`, params: call.params }),
}));
const app = createServiceApp([{ prefix: '/v1', routes: stood, answerError: toErrorResponse }]);
const ask = async (method: string, target: string) => {
  const answer = await app.fetch(new Request(`http://127.0.0.1${target}`, { method }));
  return { status: answer.status, allow: answer.headers.get('allow'), body: method === 'HEAD' ? null : await answer.json() };
};
const concrete = (path: string) => path.replace('{jobId}', 'job_1').replace('{uploadId}', 'upl_%C3%A9');

describe('the route table of /v1', () => {
  it('names each method of each path once, under /v1, with an operation id of its own', () => {
    const routes = V1_ROUTES.map(({ doc }) => `${doc.method} ${doc.path}`);
    expect(new Set(routes).size).toBe(routes.length);
    expect(new Set(V1_ROUTES.map(({ doc }) => doc.operationId)).size).toBe(routes.length);
    for (const { doc } of V1_ROUTES) expect(doc.path.startsWith('/v1/'), doc.path).toBe(true);
    expect(routes.length).toBeGreaterThanOrEqual(12);
  });

  it.each(V1_ROUTES.map(({ doc }) => doc))(
    '$method $path: served at its path (a trailing slash and a query as Next), with its parameters',
    async (doc) => {
      for (const target of [concrete(doc.path), `${concrete(doc.path)}/`, `${concrete(doc.path)}?a=1`]) {
        const answer = await ask(doc.method, target);
        expect(answer.status, target).toBe(200);
        expect(answer.body.route).toBe(`${doc.method} ${doc.path}`);
      }
      if (doc.path.includes('{jobId}')) expect((await ask(doc.method, concrete(doc.path))).body.params).toEqual({ jobId: 'job_1' });
      if (doc.path.includes('{uploadId}')) expect((await ask(doc.method, concrete(doc.path))).body.params).toEqual({ uploadId: 'upl_é' });
    },
  );

  it.each([...new Set(V1_ROUTES.map(({ doc }) => doc.path))])('%s: HEAD with GET, every other method 405 with Allow', async (path) => {
    const methods = V1_ROUTES.filter(({ doc }) => doc.path === path).map(({ doc }) => doc.method as string);
    const allow = ['GET', 'HEAD', 'POST'].filter((m) => methods.includes(m) || (m === 'HEAD' && methods.includes('GET'))).join(', ');
    for (const method of ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'PROPFIND']) {
      const answer = await ask(method, concrete(path));
      if (allow.split(', ').includes(method)) expect(answer.status, method).toBe(200);
      else
        expect([answer.status, answer.allow, answer.body?.error.code ?? 'no body'], method).toEqual([
          405,
          allow,
          method === 'HEAD' ? 'no body' : 'method_not_allowed',
        ]);
    }
  });

  it('answers 404 in the envelope for every other path under /v1, whatever the method', async () => {
    for (const target of [
      '/v1',
      '/v1/',
      '/v1/nope',
      '/v1/jobs',
      '/v1/jobs//cancel',
      '/v1/text/generate/extra',
      '/v1/Text/generate',
      '/v1/%74ext/generate',
    ]) {
      for (const method of ['GET', 'POST', 'DELETE']) {
        const answer = await ask(method, target);
        expect([answer.status, answer.body.error.code], `${method} ${target}`).toEqual([404, 'not_found']);
      }
    }
  });

  it("is what npm start's server hands the app: the surfaces' paths, the signed URLs and the probes, nothing else", () => {
    for (const target of [
      '/v1',
      '/v1/',
      '/v1?x=1',
      '/v1/text/generate',
      '/v1/nope',
      '/healthz',
      '/healthz/',
      '/readyz?x=1',
      '/files/a?exp=1',
      '/uploads/upl_x?exp=1',
    ])
      expect(servesTarget(target), target).toBe(true);
    for (const target of [
      '/',
      '/v10',
      '/v1x',
      '/healthz/more',
      '/healthzz',
      '/signin',
      '/api/trpc/keys.list',
      '/uploads',
      '/files',
      '/filesx/a',
    ])
      expect(servesTarget(target), target).toBe(false);
  });

  it('answers an output URL in the envelope: 404 for a bad signature, 405 with Allow for a method but GET and HEAD', async () => {
    expect(await ask('GET', '/files/out/x.png?exp=1&type=image%2Fpng&n=a&sig=b')).toMatchObject({
      status: 404,
      body: { error: { code: 'not_found' } },
    });
    expect(await ask('POST', '/files/out/x.png')).toMatchObject({
      status: 405,
      allow: 'GET, HEAD',
      body: { error: { code: 'method_not_allowed' } },
    });
  });
});
