import { parseUsageFilters } from '@/server/contract/dashboard/usage-filters';
import { csvExportResponse } from '@wgs/server/next';
import { dashboardCaller, currentOperator } from '@/app/(dashboard)/operator';

export const dynamic = 'force-dynamic';

/**
 * GET /usage/export?key=&request=&operation=&outcome=&from=&to= : exactly the events the usage
 * page shows for the same URL parameters, as CSV, streamed, read through the page's own tRPC caller. A filter that cannot apply is a 400
 * naming it (the page shows it next to its field), never silently dropped.
 */
export async function GET(request: Request): Promise<Response> {
  if (!(await currentOperator()))
    return new Response('Sign in to export usage.\n', { status: 401, headers: { 'Cache-Control': 'no-store' } });
  const query = new URL(request.url).searchParams;
  const { filters, invalid } = parseUsageFilters((name) => query.get(name) ?? undefined);
  const refused = Object.values(invalid);
  if (refused.length > 0)
    return new Response(`Invalid filters: ${refused.join(' ')}\n`, { status: 400, headers: { 'Cache-Control': 'no-store' } });
  // A HEAD's body is never read, nor closed: no export is started for it.
  if (request.method === 'HEAD')
    return new Response(null, { headers: { 'Content-Type': 'text/csv; charset=utf-8', 'Cache-Control': 'no-store' } });
  const { caller } = await dashboardCaller('/usage');
  return csvExportResponse(await caller.usage.csv(filters), `usage-${new Date().toISOString().slice(0, 10)}.csv`);
}
