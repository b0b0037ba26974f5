import { serveMetrics } from '@wgs/server/next';

export const dynamic = 'force-dynamic';
export const GET = serveMetrics;
