// The /v1 text.generate pipeline called in-process (no Next.js, no HTTP) against a throwaway
// embedded PostgreSQL: its own CPU per call and PostgreSQL's, with 1, 4 and 20 calls in flight
// at once (PROBE_IN_FLIGHT=1,2,8 for others), next to a 422, a bare `SELECT 1` and the cost of
// building a Request. Open loop at the bench's R, calls arrive nearly one at a time; closed loop
// with 50 connections, many at once: this shows what each costs per call.
// Run: npx tsx scripts/bench/pipeline-probe.ts
import { startProbeDatabase } from './probe-database';
import { cpuByPid, cpuSpent, postgresPids } from './proc-stats';

const CALLS = 3000;
const IN_FLIGHT = (process.env.PROBE_IN_FLIGHT ?? '1,4,20').split(',').map(Number);

/** Runs `round` (which makes `perRound` calls) until `calls` calls are made, after a warm-up; prints CPU per call. */
async function measure(label: string, postmaster: number, round: () => Promise<unknown>, perRound = 1, calls = CALLS) {
  for (let i = 0; i < 300; i++) await round();
  const postgresBefore = cpuByPid(postgresPids(postmaster));
  const before = process.cpuUsage();
  const started = performance.now();
  for (let i = 0; i < calls / perRound; i++) await round();
  const used = process.cpuUsage(before);
  const postgresMs = cpuSpent(postgresBefore, cpuByPid(postgresPids(postmaster)));
  const perCall = (us: number) => (us / calls).toFixed(0).padStart(5);
  console.log(
    label.padEnd(44),
    `${perCall(used.user + used.system)} us CPU/call,`,
    `postgres ${perCall(postgresMs * 1000)} us/call,`,
    `wall ${perCall((performance.now() - started) * 1000)} us/call`,
  );
}

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
  const call = async (body?: string, status = 200) => {
    const response = await textGenerateRoute.handle(req(body), { params: {}, connection: undefined, record: {} });
    if (response.status !== status) throw new Error(`${response.status} ${await response.text()}`);
    await response.text();
  };
  const pool = getPool();
  const postmaster = probe.postmasterPid;
  // Planned for empty tables, the paid statements cost PostgreSQL more and more as the tables grow.
  for (let i = 0; i < 300; i++) await call();
  await pool.query('ANALYZE');
  for (const inFlight of IN_FLIGHT) {
    const round = () => Promise.all(Array.from({ length: inFlight }, () => call()));
    await measure(`text.generate, ${inFlight} in flight`, postmaster, round, inFlight);
  }
  await measure('pipeline 422', postmaster, () => call('{"input":""}', 422));
  await measure('pg SELECT 1 (pool.query)', postmaster, () => pool.query('SELECT 1'));
  await measure('new Request + read body only', postmaster, () => req().text());
  await probe.close();
}
main().then(
  () => process.exit(0),
  (e) => {
    console.error(e);
    process.exit(1);
  },
);
