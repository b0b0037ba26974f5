import { fetchRequestHandler } from '@trpc/server/adapters/fetch';
import {
  createPortalRequestContext,
  crossSiteRefusal,
  portalOffResponse,
  portalRouter,
  refusedContext,
  routeMethods,
  strictJsonBody,
  trpcOnError,
  trpcResponseMeta,
} from '@wgs/server/next';
import { TRPC_MAX_BATCH_SIZE } from '@/server/contract/dashboard/trpc-limits';

export const dynamic = 'force-dynamic';

async function handler(req: Request): Promise<Response> {
  const off = portalOffResponse();
  if (off) return off;
  // Mutations are POSTs: another site's is refused before anything runs, as on /api/trpc.
  const refused = crossSiteRefusal(req, true);
  if (refused) return refused;
  const { request, problem } = await strictJsonBody(req);
  return fetchRequestHandler({
    endpoint: '/api/portal/trpc',
    req: request,
    router: portalRouter,
    createContext: problem ? refusedContext(problem) : () => createPortalRequestContext(request),
    maxBatchSize: TRPC_MAX_BATCH_SIZE,
    responseMeta: trpcResponseMeta,
    onError: trpcOnError,
  });
}

// Queries are GETs, mutations POSTs; every other method: 405 in the envelope, with Allow.
export const { GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS } = routeMethods({ GET: handler, POST: handler });
