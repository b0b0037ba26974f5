import { fetchRequestHandler } from '@trpc/server/adapters/fetch';
import { appRouter } from '@/server/trpc/app-router';
import { createRequestContext } from '@/server/trpc/context';

export const dynamic = 'force-dynamic';

function handler(req: Request) {
  return fetchRequestHandler({
    endpoint: '/api/trpc',
    req,
    router: appRouter,
    createContext: createRequestContext,
    responseMeta: () => ({ headers: new Headers({ 'Cache-Control': 'no-store' }) }),
  });
}

export { handler as GET, handler as POST };
