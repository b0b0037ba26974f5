// Readiness for load balancers (server/instance/readiness.ts); /healthz is the liveness answer.
import { serveReadiness } from '@/server/instance/readiness';

export const dynamic = 'force-dynamic';
export const GET = serveReadiness;
