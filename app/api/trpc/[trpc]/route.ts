import { fetchRequestHandler } from '@trpc/server/adapters/fetch';
import {
  appRouter,
  createRequestContext,
  crossSiteRefusal,
  refusedContext,
  routeMethods,
  strictJsonBody,
  trpcOnError,
  trpcResponseMeta,
} from '@wgs/server/next';
import { TRPC_MAX_BATCH_SIZE } from '@/server/contract/dashboard/trpc-limits';

export const dynamic = 'force-dynamic';

async function handler(req: Request): Promise<Response> {
  // Mutations are POSTs: another site's is refused before anything runs.
  const refused = crossSiteRefusal(req, true);
  if (refused) return refused;
  const { request, problem } = await strictJsonBody(req);
  return fetchRequestHandler({
    endpoint: '/api/trpc',
    req: request,
    router: appRouter,
    createContext: problem ? refusedContext(problem) : createRequestContext,
    maxBatchSize: TRPC_MAX_BATCH_SIZE,
    responseMeta: trpcResponseMeta,
    onError: trpcOnError,
  });
}

// Queries are GETs, mutations POSTs; every other method: 405 in the envelope, with Allow.
export const { GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS } = routeMethods({ GET: handler, POST: handler });
