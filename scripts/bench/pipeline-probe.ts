// The /v1 text.generate pipeline called in-process (no Next.js, no HTTP), sequentially, against a
// throwaway embedded PostgreSQL: its own CPU per call, next to a bare `SELECT 1` and the cost of
// building a Request. Run: npx tsx scripts/bench/pipeline-probe.ts
import { startProbeDatabase } from './probe-database';

async function main() {
  process.env.SIGNING_SECRET = 'x'.repeat(40);
  const probe = await startProbeDatabase('pp');
  const { getPool } = await import('../../server/db/client');
  const { textGenerateRoute } = await import('../../server/http/routes/text-and-code');
  let n = 0;
  const req = (body = JSON.stringify({ input: 'Summarise the benefits of idempotent APIs in two sentences.' })) =>
    new Request('http://127.0.0.1:1/v1/text/generate', {
      method: 'POST',
      headers: { authorization: `Bearer ${probe.key}`, 'content-type': 'application/json', 'idempotency-key': `pp-probe-${++n}` },
      body,
    });
  const pool = getPool();
  const run = async (label: string, N: number, f: () => Promise<unknown>) => {
    for (let i = 0; i < 300; i++) await f();
    const c0 = process.cpuUsage();
    const t0 = performance.now();
    for (let i = 0; i < N; i++) await f();
    const c = process.cpuUsage(c0);
    console.log(
      label.padEnd(40),
      ((c.user + c.system) / N).toFixed(0),
      'us CPU/call',
      (((performance.now() - t0) / N) * 1000).toFixed(0),
      'us wall',
    );
  };
  await run('pipeline text.generate (in-process)', 3000, async () => {
    const r = await textGenerateRoute.handle(req(), { params: {}, connection: undefined, record: {} });
    if (r.status !== 200) throw new Error(String(r.status) + (await r.text()));
    await r.text();
  });
  await run('pipeline 422', 3000, async () => {
    const r = await textGenerateRoute.handle(req('{"input":""}'), { params: {}, connection: undefined, record: {} });
    await r.text();
  });
  await run('pg SELECT 1 (pool.query)', 3000, () => pool.query('SELECT 1'));
  await run('new Request + read body only', 3000, async () => {
    await req().text();
  });
  await probe.close();
}
main().then(
  () => process.exit(0),
  (e) => {
    console.error(e);
    process.exit(1);
  },
);
