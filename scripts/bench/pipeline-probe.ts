// The /v1 text.generate pipeline called in-process (no Next.js, no HTTP) against a throwaway
// embedded PostgreSQL: its own CPU per call and PostgreSQL's, with 1, 4 and 20 calls in flight
// at once (PROBE_IN_FLIGHT=1,2,8 for others), next to a 422, a bare `SELECT 1` and the cost of
// building a Request. Open loop at the bench's R, calls arrive nearly one at a time; closed loop
// with 50 connections, many at once: this shows what each costs per call.
// Run: npx tsx scripts/bench/pipeline-probe.ts
import { textGenerateCalls } from './probe-calls';
import { startProbeDatabase } from './probe-database';
import { cpuByPid, cpuSpent, postgresPids } from './proc-stats';
import { runProbe } from './run-probe';

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
  const paid = await textGenerateCalls('pp-probe');
  const req = () => paid.request(probe.key);
  const call = (body?: string, status = 200) => paid.call(probe.key, body, status);
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
runProbe(main);
