// `npm run bench`: measures the product against two references on the same machine, in the
// same run, with the same load generators (after a warm-up each):
//   - product:      POST /v1/text/generate (local engine), a fresh Idempotency-Key per request
//   - trivial:      GET /healthz of the same Next.js process (the cost of Next itself)
//   - bare floor:   scripts/bench/bare-floor.ts, node:http + pg doing the same essential
//                   database work (claim idempotency key, hold units, record usage)
//   - provider path: text.generate through an `openai-compatible` engine pointed at
//                   scripts/bench/instant-provider.ts, and that instant provider called directly
// plus the rejection paths (401, 422: no database write allowed), the idempotent replay, the
// paid path and rejections once more on a second instance with the request log and metrics off,
// and the latency at a fixed offered rate R (half what the slower paid path did closed loop in this
// run) and at a tenth of it. The rows compared with each other (the two paid paths, the bare floor,
// and Portkey's gateway as the peer) are measured in alternating windows, so the machine's drift
// during the run falls on them alike.
// The scenarios are a table (scripts/bench/scenarios.ts); scripts/bench/runner.ts runs them.
// Everything runs on 127.0.0.1, on a temporary data dir with its own embedded PostgreSQL.
// The figures are printed, never asserted; the books (against the answers), each row's answers
// and the rejections' lack of writes are checked (exit code 1 when they fail). The last line has a fixed form for comparisons.
import { drain, readBooks } from './bench/books';
import { memoryOf } from './bench/proc-stats';
import { shutdown } from './bench/processes';
import { printReport, startLoadAverage } from './bench/report';
import { runScenarios } from './bench/runner';
import { lowerRateScenarios, MEDIA_SCENARIOS, ROW_ORDER, SCENARIOS, tenthOf } from './bench/scenarios';
import { LOWER_RATES } from './bench/settings';
import { KEY_LABELS, startStack } from './bench/stack';

async function main(): Promise<void> {
  const started = Date.now();
  const startLoad = startLoadAverage();
  const stack = await startStack();
  const results = await runScenarios(stack, SCENARIOS);
  const fixedRate = results.fixedRate!;
  const lowerRates = [...new Set([tenthOf(fixedRate), ...LOWER_RATES.filter((rate) => rate < fixedRate)])];
  const lower = lowerRateScenarios(lowerRates);
  await runScenarios(stack, lower, results);
  await runScenarios(stack, MEDIA_SCENARIOS, results);
  const memory = memoryOf(stack.app.pid!);
  // Requests the load generator gave up on may still be running (a backlog at a fixed rate):
  // the books are read once every request has settled its hold.
  await drain(stack.stats);
  const answered = new Map([...results.tallies].map(([key, tally]) => [KEY_LABELS[key], tally]));
  const books = (await readBooks(stack.stats)).map((b) => ({ ...b, answered: answered.get(b.label) }));
  await stack.stats.end();
  const correct = printReport({
    rows: results.rows,
    rowOrder: [...ROW_ORDER, ...lower.map((s) => s.id), ...MEDIA_SCENARIOS.map((s) => s.id)],
    fixedRate,
    lowerRates,
    startLoad,
    idleRss: stack.idleRss,
    hwm: memory.hwm,
    books,
    started,
  });
  await shutdown();
  if (!correct) process.exitCode = 1;
}

main().catch(async (error: unknown) => {
  process.stderr.write(`[bench] failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  await shutdown();
  process.exit(1);
});
