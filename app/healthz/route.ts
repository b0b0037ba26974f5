// Liveness for load balancers and tests; also the "trivial route handler" of `npm run bench`.
import { routeMethods } from '@/server/http/route-methods';

export const dynamic = 'force-dynamic';

async function liveness(): Promise<Response> {
  return Response.json({ status: 'ok' }, { headers: { 'Cache-Control': 'no-store' } });
}

export const { GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS } = routeMethods({ GET: liveness });
