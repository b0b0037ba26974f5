import { TRPCError } from '@trpc/server';
import { parseUsageFilters } from '@/server/contract/dashboard/usage-filters';
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
  const { caller } = await dashboardCaller('/usage');
  const lines = await caller.usage.csv(filters).catch((error: unknown) => {
    if (error instanceof TRPCError && error.code === 'TOO_MANY_REQUESTS') return error;
    throw error;
  });
  if (lines instanceof TRPCError)
    return new Response(`${lines.message}\n`, { status: 429, headers: { 'Cache-Control': 'no-store', 'Retry-After': '5' } });
  const encoder = new TextEncoder();
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      const next = await lines.next();
      if (next.done) controller.close();
      else controller.enqueue(encoder.encode(next.value));
    },
    async cancel() {
      await lines.return(undefined);
    },
  });
  const stamp = new Date().toISOString().slice(0, 10);
  return new Response(body, {
    headers: {
      'Content-Type': 'text/csv; charset=utf-8',
      'Content-Disposition': `attachment; filename="usage-${stamp}.csv"`,
      'Cache-Control': 'no-store',
    },
  });
}
