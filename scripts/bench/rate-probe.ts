// The paid paths at a fixed offered rate for many rounds on one stack (the bench's own, started
// as `npm run bench` starts it): how the latency at R moves from round to round, and with what.
// Per round: loadtest's p50 and p99; the share of the server's own request durations over 25 ms, and of
// the paid calls' writes answered after 10 and 25 ms (wgs_db_write_seconds: a statement's wait included);
// per call (over the round's warm-up and measurement), the time the server's main thread spent on
// a CPU and waiting for one (on its run queue), the same for PostgreSQL's processes and the bench
// process; the batch sizes; what PostgreSQL did meanwhile (database-activity.ts), its dead tuples
// and the shared buffers each table and index was read through per call. With SAMPLE_WAITS_MS, also
// what the client backends waited on and the autovacuum phases, sampled that often (wait-sampler.ts;
// the sampling costs PostgreSQL CPU, so it is off unless asked for).
// Run: RATE=450 ROUNDS=12 PATHS=provider npx tsx scripts/bench/rate-probe.ts   (PATHS=local,provider for both)
import { productMetrics } from './batch-sizes';
import { activityNote, databaseActivity } from './database-activity';
import { postgresPids, schedByThread, schedSpent } from './proc-stats';
import { runStartingProcesses } from './processes';
import { runScenarios } from './runner';
import { lowerRateScenarios } from './scenarios';
import { startStack, type Stack } from './stack';
import { startWaitSampler, waitNote } from './wait-sampler';

const RATE = Number(process.env.RATE ?? 450);
const ROUNDS = Number(process.env.ROUNDS ?? 12);
const PATHS = (process.env.PATHS ?? 'provider').split(',');
const SAMPLE_WAITS_MS = process.env.SAMPLE_WAITS_MS ? Number(process.env.SAMPLE_WAITS_MS) : undefined;

/** Counts of a histogram of the product's metrics so far, by `keyOf` (lines it returns undefined for are skipped): all, and within each bound. */
async function histogramCounts(
  appUrl: string,
  name: string,
  keyOf: (line: string) => string | undefined,
): Promise<Map<string, { all: number; within10ms: number; within25ms: number }>> {
  const counts = new Map<string, { all: number; within10ms: number; within25ms: number }>();
  for (const line of ((await productMetrics(appUrl)) ?? '').split('\n')) {
    if (!line.startsWith(`${name}_bucket{`)) continue;
    const key = keyOf(line);
    if (key === undefined) continue;
    const entry = counts.get(key) ?? { all: 0, within10ms: 0, within25ms: 0 };
    counts.set(key, entry);
    const count = Number(line.slice(line.lastIndexOf(' ') + 1));
    if (line.includes('le="+Inf"')) entry.all += count;
    if (line.includes('le="0.01"')) entry.within10ms += count;
    if (line.includes('le="0.025"')) entry.within25ms += count;
  }
  return counts;
}

/** `/v1` requests answered 200 so far, and those within 25 ms (the server's request-duration histogram). */
async function serverDurations(appUrl: string): Promise<{ all: number; within25ms: number }> {
  const counts = await histogramCounts(appUrl, 'wgs_http_request_duration_seconds', (line) =>
    line.includes('status="200"') ? '200' : undefined,
  );
  return counts.get('200') ?? { all: 0, within25ms: 0 };
}

/** Paid calls' writes timed so far by statement, and those answered within 10 and 25 ms (wgs_db_write_seconds). */
function writeWaits(appUrl: string) {
  return histogramCounts(appUrl, 'wgs_db_write_seconds', (line) => /statement="([^"]+)"/.exec(line)?.[1]);
}

/** The share of each statement's writes answered after 10 and after 25 ms between two samples. */
function slowWrites(before: Awaited<ReturnType<typeof writeWaits>>, after: Awaited<ReturnType<typeof writeWaits>>): string {
  return [...after]
    .map(([statement, a]) => {
      const b = before.get(statement) ?? { all: 0, within10ms: 0, within25ms: 0 };
      const all = a.all - b.all;
      const over = (within: number) => (all ? ((100 * (all - within)) / all).toFixed(1) : '-');
      return `${statement.replace('wgs_batch_', '')} ${over(a.within10ms - b.within10ms)}% / ${over(a.within25ms - b.within25ms)}%`;
    })
    .join(', ');
}

/** Dead tuples of the paid tables. */
async function deadTuples(stack: Stack): Promise<string> {
  const { rows } = await stack.stats.query<{ dead: string }>(
    `SELECT string_agg(relname || ' ' || n_dead_tup, ', ' ORDER BY relname) AS dead FROM pg_stat_user_tables
      WHERE relname IN ('api_keys', 'rate_windows', 'idempotency_records', 'unit_holds')`,
  );
  return rows[0]!.dead;
}

/** Shared buffers read (hit or not) so far, by table and by index. */
async function buffersRead(stack: Stack): Promise<Map<string, number>> {
  const { rows } = await stack.stats.query<{ name: string; blocks: string }>(
    `SELECT relname AS name, heap_blks_hit + heap_blks_read AS blocks FROM pg_statio_user_tables
      UNION ALL SELECT indexrelname, idx_blks_hit + idx_blks_read FROM pg_statio_user_indexes`,
  );
  return new Map(rows.map((row) => [row.name, Number(row.blocks)]));
}

/** The relations that read the most buffers per call between two samples, most first. */
function buffersPerCall(before: Map<string, number>, after: Map<string, number>, calls: number): string {
  const perCall = [...after].map(([name, blocks]) => [name, (blocks - (before.get(name) ?? 0)) / calls] as const);
  const total = perCall.reduce((sum, [, blocks]) => sum + blocks, 0);
  const top = perCall.filter(([, blocks]) => blocks >= 0.5).sort((a, b) => b[1] - a[1]);
  return `${total.toFixed(1)} (${top.map(([name, blocks]) => `${name} ${blocks.toFixed(1)}`).join(', ')})`;
}

/** Every thread's scheduler times, by the groups printed. */
function schedSample(stack: Stack) {
  return {
    serverMain: schedByThread([stack.app.pid!], true),
    postgres: schedByThread(postgresPids(stack.postmasterPid)),
    bench: schedByThread([process.pid]),
  };
}

/** What a round is measured by, before and after it. */
async function snapshot(stack: Stack) {
  return {
    durations: await serverDurations(stack.appUrl),
    writes: await writeWaits(stack.appUrl),
    sched: schedSample(stack),
    database: await databaseActivity(stack.stats, stack.postmasterPid),
    dead: await deadTuples(stack),
    buffers: await buffersRead(stack),
  };
}

async function main() {
  const stack = await startStack();
  const sampler = SAMPLE_WAITS_MS ? await startWaitSampler(stack.databaseUrl, SAMPLE_WAITS_MS) : undefined;
  const scenarios = lowerRateScenarios([RATE]).filter((scenario) => PATHS.some((path) => scenario.id.startsWith(`${path}@`)));
  for (let round = 1; round <= ROUNDS; round++) {
    for (const scenario of scenarios) {
      const before = await snapshot(stack);
      sampler?.take();
      const row = [...(await runScenarios(stack, [{ ...scenario, before: undefined }])).rows.values()][0]!;
      const waits = sampler ? `; waits (${waitNote(sampler.take())})` : '';
      const after = await snapshot(stack);
      const calls = after.durations.all - before.durations.all;
      const over25 = calls - (after.durations.within25ms - before.durations.within25ms);
      const perCall = (group: keyof ReturnType<typeof schedSample>) => {
        const spent = schedSpent(before.sched[group], after.sched[group]);
        return `${group} ${Math.round(spent.runUs / calls)}+${Math.round(spent.waitUs / calls)}`;
      };
      console.log(
        `round ${round} ${row.name}: p50 ${row.p50} ms, p99 ${row.p99} ms; server over 25 ms ${((100 * over25) / calls).toFixed(1)}%;`,
        `writes answered after 10 / 25 ms: ${slowWrites(before.writes, after.writes)};`,
        `µs per call on a CPU + waiting: ${perCall('serverMain')}, ${perCall('postgres')}, ${perCall('bench')};`,
        `${row.note ?? ''}; ${activityNote(before.database, after.database)}; dead tuples ${after.dead};`,
        `buffers per call ${buffersPerCall(before.buffers, after.buffers, calls)}${waits}`,
      );
    }
  }
  await sampler?.stop();
  await stack.stats.end();
}

runStartingProcesses(main);
