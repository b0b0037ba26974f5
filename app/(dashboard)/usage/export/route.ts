import { getOperatorSession } from '@/server/auth/session';
import { getPrisma } from '@/server/db/client';
import { usageCsvLines } from '@/server/domain/reports/usage-events';
import { usageFilters, usageRange } from '@/server/contract/dashboard/usage-filters';

export const dynamic = 'force-dynamic';

/** GET /usage/export?operation=&outcome=&key=&from=&to= : the filtered usage events as CSV, streamed. */
export async function GET(request: Request): Promise<Response> {
  if (!(await getOperatorSession())) return new Response('Sign in to export usage.\n', { status: 401, headers: { 'Cache-Control': 'no-store' } });
  const query = new URL(request.url).searchParams;
  const parsed = usageFilters.safeParse({
    apiKeyId: query.get('key') || undefined,
    operation: query.get('operation') || undefined,
    outcome: query.get('outcome') || undefined,
    from: query.get('from') || undefined,
    to: query.get('to') || undefined,
  });
  if (!parsed.success) return new Response('Invalid filters.\n', { status: 400, headers: { 'Cache-Control': 'no-store' } });
  const lines = usageCsvLines(getPrisma(), { ...parsed.data, ...usageRange(parsed.data) });
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
