import { createPortalRequestContext, portalOffResponse, portalRouter, routeMethods, trpcEndpoint } from '@wgs/server/next';

export const dynamic = 'force-dynamic';

const portal = trpcEndpoint({ endpoint: '/api/portal/trpc', router: portalRouter, createContext: createPortalRequestContext });

async function handler(req: Request): Promise<Response> {
  return portalOffResponse() ?? portal(req);
}

// Queries are GETs, mutations POSTs; every other method: 405 in the envelope, with Allow.
export const { GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS } = routeMethods({ GET: handler, POST: handler });
