import type { AnyTRPCRouter } from '@trpc/server';
import { fetchRequestHandler } from '@trpc/server/adapters/fetch';
import { TRPC_MAX_BATCH_SIZE } from '../contract/dashboard/trpc-limits';
import { crossSiteRefusal } from '../http/same-origin';
import { strictJsonBody } from '../http/strict-json-body';
import { refusedContext, type TrpcContext } from '../trpc/context';
import { trpcOnError, trpcResponseMeta } from '../trpc/response-meta';

// The dashboard's and the portal's tRPC endpoints, one way: another site's POST is refused before
// anything runs, a body that breaks the JSON rules (a repeated member, bytes that are no UTF-8) is
// refused as on /v1, and errors and headers are tRPC's as the dashboard maps them.

export function trpcEndpoint(options: {
  endpoint: string;
  router: AnyTRPCRouter;
  createContext: (request: Request) => Promise<TrpcContext>;
}): (req: Request) => Promise<Response> {
  return async (req) => {
    const refused = crossSiteRefusal(req, true); // mutations are POSTs
    if (refused) return refused;
    const { request, problem } = await strictJsonBody(req);
    return fetchRequestHandler({
      endpoint: options.endpoint,
      req: request,
      router: options.router,
      createContext: problem ? refusedContext(problem) : () => options.createContext(request),
      maxBatchSize: TRPC_MAX_BATCH_SIZE,
      responseMeta: trpcResponseMeta,
      onError: trpcOnError,
    });
  };
}
