import { serveMetrics } from '@/server/observability/metrics-endpoint';

export const dynamic = 'force-dynamic';
export const GET = serveMetrics;
