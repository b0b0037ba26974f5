import { fetchRequestHandler } from '@trpc/server/adapters/fetch';
import { portalOffResponse } from '@/server/http/portal/portal-off';
import { crossSiteRefusal } from '@/server/http/same-origin';
import { TRPC_MAX_BATCH_SIZE } from '@/server/contract/dashboard/trpc-limits';
import { createPortalRequestContext } from '@/server/trpc/portal/portal-context';
import { portalRouter } from '@/server/trpc/portal/portal-router';

export const dynamic = 'force-dynamic';

function handler(req: Request) {
  const off = portalOffResponse();
  if (off) return off;
  // Mutations are POSTs: another site's is refused before anything runs, as on /api/trpc.
  const refused = crossSiteRefusal(req, true);
  if (refused) return refused;
  return fetchRequestHandler({
    endpoint: '/api/portal/trpc',
    req,
    router: portalRouter,
    createContext: ({ req: request }) => createPortalRequestContext(request),
    maxBatchSize: TRPC_MAX_BATCH_SIZE,
    responseMeta: () => ({ headers: new Headers({ 'Cache-Control': 'no-store' }) }),
  });
}

export { handler as GET, handler as POST };
