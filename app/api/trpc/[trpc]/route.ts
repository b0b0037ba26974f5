import { appRouter, createRequestContext, routeMethods, trpcEndpoint } from '@wgs/server/next';

export const dynamic = 'force-dynamic';

const handler = trpcEndpoint({ endpoint: '/api/trpc', router: appRouter, createContext: createRequestContext });

// Queries are GETs, mutations POSTs; every other method: 405 in the envelope, with Allow.
export const { GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS } = routeMethods({ GET: handler, POST: handler });
