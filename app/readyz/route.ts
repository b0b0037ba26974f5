// Readiness for load balancers (server/instance/readiness.ts); /healthz is the liveness answer.
import { routeMethods } from '@/server/http/route-methods';
import { serveReadiness } from '@/server/instance/readiness';

export const dynamic = 'force-dynamic';
export const { GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS } = routeMethods({ GET: serveReadiness });
