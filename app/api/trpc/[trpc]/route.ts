import { fetchRequestHandler } from '@trpc/server/adapters/fetch';
import { appRouter, createRequestContext, crossSiteRefusal, trpcOnError, trpcResponseMeta } from '@wgs/server/next';
import { TRPC_MAX_BATCH_SIZE } from '@/server/contract/dashboard/trpc-limits';

export const dynamic = 'force-dynamic';

function handler(req: Request) {
  // Mutations are POSTs: another site's is refused before anything runs.
  const refused = crossSiteRefusal(req, true);
  if (refused) return refused;
  return fetchRequestHandler({
    endpoint: '/api/trpc',
    req,
    router: appRouter,
    createContext: createRequestContext,
    maxBatchSize: TRPC_MAX_BATCH_SIZE,
    responseMeta: trpcResponseMeta,
    onError: trpcOnError,
  });
}

export { handler as GET, handler as POST };
