// PostgreSQL's CPU per paid call as the tables grow: the /v1 text.generate pipeline in-process, 20
// calls in flight, chunk after chunk of 5,000 calls, against statistics taken early (after 300
// calls, or PROBE_ANALYZE_EMPTY=1: on empty tables, as a fresh deployment's first autovacuum takes
// them). A statement planned on such statistics may read more and more rows per call until
// autovacuum analyzes again; then the chunks' cost rises. Ends with the indexes' reads per scan and
// the key's tables' pages and HOT updates.
// Run: npx tsx scripts/bench/growth-probe.ts   (PROBE_CHUNKS=12 for more)
import { textGenerateCalls } from './probe-calls';
import { startProbeDatabase } from './probe-database';
import { cpuByPid, cpuSpent, postgresPids } from './proc-stats';
import { runProbe } from './run-probe';

const CHUNK = 5000;
const CHUNKS = Number(process.env.PROBE_CHUNKS ?? 4);

async function main() {
  process.env.SIGNING_SECRET = 'x'.repeat(40);
  const probe = await startProbeDatabase('gp');
  const { getPool } = await import('../../server/db/client');
  const paid = await textGenerateCalls('growth-probe');
  const call = () => paid.call(probe.key);
  const twentyAtOnce = () => Promise.all(Array.from({ length: 20 }, call));
  if (!process.env.PROBE_ANALYZE_EMPTY) for (let i = 0; i < 15; i++) await twentyAtOnce();
  await getPool().query('ANALYZE');
  for (let chunk = 1; chunk <= CHUNKS; chunk++) {
    const before = cpuByPid(postgresPids(probe.postmasterPid));
    const started = performance.now();
    for (let i = 0; i < CHUNK / 20; i++) await twentyAtOnce();
    const postgresMs = cpuSpent(before, cpuByPid(postgresPids(probe.postmasterPid)));
    const perCall = (ms: number) => ((ms * 1000) / CHUNK).toFixed(0).padStart(5);
    console.log(
      `calls ${String(chunk * CHUNK).padStart(6)}: postgres ${perCall(postgresMs)} us/call, wall ${perCall(performance.now() - started)} us/call`,
    );
  }
  const { rows } = await getPool().query(
    `SELECT indexrelname AS index, idx_scan AS scans, round(idx_tup_read::numeric / nullif(idx_scan, 0), 1) AS read_per_scan,
            round(idx_tup_fetch::numeric / nullif(idx_scan, 0), 1) AS fetched_per_scan
       FROM pg_stat_user_indexes WHERE idx_scan >= 1000 ORDER BY idx_tup_read DESC`,
  );
  console.table(rows);
  // Each call writes a new version of its key's rows; a batch's versions that outgrow a page move the row (not HOT).
  const tables = await getPool().query(
    `SELECT relname AS table, pg_relation_size(relid) / 8192 AS pages, n_tup_upd AS updates, n_tup_hot_upd AS hot_updates
       FROM pg_stat_user_tables WHERE relname IN ('api_keys', 'rate_windows') ORDER BY relname`,
  );
  console.table(tables.rows);
  await probe.close();
}
runProbe(main);
