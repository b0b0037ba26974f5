import { isApiError } from '../domain/errors';

// A CSV export's answer (the dashboard's /usage/export): its lines streamed as they are read, the
// first read before answering, so that an export refused then (its instance already reading as
// many as it may: server/trpc/export-slots.ts) is a 429, not a CSV cut off after its headers.

export async function csvExportResponse(lines: AsyncGenerator<string>, filename: string): Promise<Response> {
  const headers = {
    'Content-Type': 'text/csv; charset=utf-8',
    'Content-Disposition': `attachment; filename="${filename}"`,
    'Cache-Control': 'no-store',
  };
  let pending: IteratorResult<string> | undefined;
  try {
    pending = await lines.next();
  } catch (error) {
    const refusal = isApiError(error) ? error : (error as { cause?: unknown }).cause; // a tRPC caller's error carries it
    if (!isApiError(refusal) || refusal.status !== 429) throw error;
    const retry = refusal.retryAfterHeader;
    return new Response(`${refusal.message}\n`, {
      status: 429,
      headers: { 'Cache-Control': 'no-store', ...(retry ? { 'Retry-After': retry } : {}) },
    });
  }
  const encoder = new TextEncoder();
  const body = new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        const next = pending ?? (await lines.next());
        pending = undefined;
        if (next.done) controller.close();
        else controller.enqueue(encoder.encode(next.value));
      },
      async cancel() {
        await lines.return(undefined);
      },
    },
    { highWaterMark: 0 }, // nothing is read until the client reads
  );
  return new Response(body, { headers });
}
