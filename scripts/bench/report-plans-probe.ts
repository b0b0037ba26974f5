// The dashboard's reports over a large usage_events table, timed on the app's pools (planned with
// PLAN_LOOKUPS_BY_INDEX's enable_seqscan=off) and on a pool with PostgreSQL's defaults: what that
// setting costs the reports. ROWS events (copies of a real paid call's) spread over SPREAD_DAYS days
// before now; each report's best of 3.
// Run: ROWS=400000 SPREAD_DAYS=365 npx tsx scripts/bench/report-plans-probe.ts   (SPREAD_DAYS=4: every event in a 30-day range)
import pg from 'pg';
import { textGenerateCalls } from './probe-calls';
import { startProbeDatabase } from './probe-database';
import { runProbe } from './run-probe';

const ROWS = Number(process.env.ROWS ?? 400_000);
const SPREAD_S = Number(process.env.SPREAD_DAYS ?? 365) * 86_400;

/** An INSERT of ROWS copies of one usage event, each with its own id, request id and time, one in 20 failed. */
function copiesOfOneEvent(columns: string[]): string {
  const values: Record<string, string> = {
    id: 'gen_random_uuid()',
    hold_id: 'NULL',
    request_id: `'req_' || g`,
    created_at: `now() - (g::float8 * ${SPREAD_S} / ${ROWS}) * interval '1 second'`,
    outcome: `(CASE WHEN g % 20 = 0 THEN 'failed' ELSE 'succeeded' END)::"UsageOutcome"`,
  };
  return `INSERT INTO usage_events (${columns.join(', ')})
          SELECT ${columns.map((column) => values[column] ?? column).join(', ')}
            FROM (SELECT * FROM usage_events LIMIT 1) e, generate_series(1, ${ROWS}) g`;
}

async function main() {
  process.env.SIGNING_SECRET = 'x'.repeat(40);
  const probe = await startProbeDatabase('report-plans');
  const { getPool, getSqlDb, getPrisma } = await import('../../server/db/client');
  const { PrismaClient } = await import('../../server/db/generated/client');
  const { PrismaPg } = await import('@prisma/adapter-pg');
  const overview = await import('../../server/domain/reports/overview');
  const margin = await import('../../server/domain/reports/margin');
  const usage = await import('../../server/domain/reports/usage-events');
  const traffic = await import('../../server/domain/reports/traffic');
  const { providerHealth } = await import('../../server/domain/reports/provider-health');
  const { resolveTimeRange } = await import('../../server/domain/reports/time-range');
  const paid = await textGenerateCalls('report-plans');
  for (let i = 0; i < 100; i++) await paid.call(probe.key);
  const { rows } = await getPool().query<{ column_name: string }>(
    `SELECT column_name FROM information_schema.columns WHERE table_name = 'usage_events' ORDER BY ordinal_position`,
  );
  await getPool().query(copiesOfOneEvent(rows.map((row) => row.column_name)));
  await getPool().query('VACUUM ANALYZE usage_events');

  const defaults = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: 4 });
  const setups = [
    { name: 'enable_seqscan=off', sql: getSqlDb(), prisma: getPrisma() },
    { name: 'defaults', sql: { pool: defaults, provisional: defaults }, prisma: new PrismaClient({ adapter: new PrismaPg(defaults) }) },
  ];
  type Setup = (typeof setups)[number];
  const range = resolveTimeRange({ range: '30d' });
  const reports: [string, (setup: Setup) => Promise<unknown>][] = [
    ['usage by day, 30 days', (s) => overview.usageByDay(s.sql, { days: 30 })],
    ['usage by operation', (s) => overview.usageByOperation(s.sql, { days: 30 })],
    ['overview', (s) => overview.getOverview(s.prisma, s.sql, { days: 30 })],
    ['margin', (s) => margin.marginReport(s.sql, { range })],
    ['margin by package', (s) => margin.marginByPackage(s.sql, { range })],
    ['margin by key', (s) => margin.marginByKey(s.sql, { range })],
    ['usage totals', (s) => usage.usageTotals(s.prisma, {})],
    ['usage events, first page', (s) => usage.listUsageEvents(s.prisma, {})],
    ['provider health', (s) => providerHealth(s.sql)],
    ['traffic', (s) => traffic.getTrafficOverview(s.prisma, s.sql, range)],
  ];
  console.log(`${ROWS} usage events over ${SPREAD_S / 86_400} days; best of 3, ms: ${setups.map((s) => s.name).join(' | ')}`);
  for (const [name, report] of reports) {
    const times: string[] = [];
    for (const setup of setups) {
      let best = Infinity;
      for (let i = 0; i < 3; i++) {
        const started = performance.now();
        await report(setup);
        best = Math.min(best, performance.now() - started);
      }
      times.push(best.toFixed(1).padStart(7));
    }
    console.log(name.padEnd(26), times.join(' | '));
  }
  await defaults.end();
  await probe.close();
}

runProbe(main);
