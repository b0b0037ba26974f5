// The product's own share of a paid request: the text.generate route handler called directly
// in this process (Request in, Response out, same pipeline, same database work), with no Next
// and no HTTP around it. Set against the full product row of `npm run bench`, it tells how much
// of the cost per request is the pipeline and how much is Next serving it.

export interface InProcessResult {
  rps: number;
  /** CPU of this process per request, in ms (the pipeline, zod, pg driver; no HTTP). */
  cpuMs: number;
  statuses: Record<string, number>;
  /** Its paid (2xx) answers and the calls made, the warm-up's included. */
  tally: { paid: number; sent: number };
  /** CPU of the database per request, in ms, when `databaseCpuMs` is given. */
  databaseCpuMs?: number;
}

export async function measureHandlerInProcess(options: {
  databaseUrl: string;
  apiKey: string;
  body: string;
  seconds: number;
  concurrency: number;
  /** Total CPU ms of the database's processes so far. */
  databaseCpuMs?: () => number;
}): Promise<InProcessResult> {
  process.env.DATABASE_URL = options.databaseUrl;
  const { textGenerateRoute } = await import('../../server/http/routes/text-and-code');
  let counter = 0;
  let paid = 0;
  const run = (seconds: number) => {
    const statuses: Record<string, number> = {};
    let count = 0;
    const until = Date.now() + seconds * 1000;
    const before = process.cpuUsage();
    const databaseBefore = options.databaseCpuMs?.();
    const loops = Array.from({ length: options.concurrency }, async () => {
      while (Date.now() < until) {
        const response = await textGenerateRoute.handle(
          new Request('http://127.0.0.1/v1/text/generate', {
            method: 'POST',
            body: options.body,
            headers: {
              authorization: `Bearer ${options.apiKey}`,
              'content-type': 'application/json',
              'idempotency-key': `in-process-${process.pid}-${++counter}`,
            },
          }),
          { params: {}, connection: undefined, record: {} },
        );
        await response.arrayBuffer();
        statuses[response.status] = (statuses[response.status] ?? 0) + 1;
        if (response.ok) paid++;
        count++;
      }
    });
    return Promise.all(loops).then(() => {
      const cpu = process.cpuUsage(before);
      const databaseMs = databaseBefore === undefined ? undefined : options.databaseCpuMs!() - databaseBefore;
      return {
        rps: count / seconds,
        cpuMs: count ? (cpu.user + cpu.system) / 1000 / count : 0,
        statuses,
        databaseCpuMs: databaseMs === undefined || !count ? undefined : databaseMs / count,
      };
    });
  };
  await run(Math.min(3, options.seconds)); // warm-up: JIT, key cache, prepared statements
  const result = { ...(await run(options.seconds)), tally: { paid, sent: counter } };
  const { disconnectDb } = await import('../../server/db/client');
  await disconnectDb();
  return result;
}
