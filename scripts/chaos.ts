// `npm run chaos -- --seed N --minutes M --concurrency C`: the real product (its own embedded
// PostgreSQL, two app instances of `npm start` on it, the video worker) driven by a seeded mix of
// paid calls while faults are injected (clients that hang up, providers that fail, processes
// SIGKILLed, PostgreSQL restarted, Stripe events doubled or out of order, webhook endpoints that
// fail), then, once everything settled, the books read with the checker's own SQL and compared with
// what the clients and fakes saw (docs/reliability.md). Prints a table and ends with one line:
//   chaos: N calls, F faults of K kinds, V violations, seed S
// Exits 1 on any violation (2 when the run itself fails); the JSON report's path is printed.
import { join } from 'node:path';
import { cleanUp, cleanUpOnSignals } from './chaos/stack/cleanup';
import { parseOptions } from './chaos/options';
import { lastLine, renderTables, renderViolations, violationCount, writeReport } from './chaos/report';
import { logDirFor, runChaos } from './chaos/run';

const log = (line: string) => process.stderr.write(`[chaos] ${line}\n`);
const print = (line: string) => process.stdout.write(`${line}\n`);

async function main(): Promise<void> {
  const options = parseOptions(process.argv.slice(2));
  cleanUpOnSignals(log);
  const logDir = logDirFor(options);
  log(`seed ${options.seed} (repeat this run with --seed ${options.seed}); logs in ${logDir}`);
  const report = await runChaos(options, logDir, log);
  await cleanUp();
  const path = options.reportPath ?? join(logDir, 'report.json');
  writeReport(report, path);
  for (const line of [...renderTables(report), ...renderViolations(report)]) print(line);
  if (report.driverErrors.count)
    print(`\n${report.driverErrors.count} calls failed in the harness itself; the first: ${report.driverErrors.first}`);
  const { webhooks } = report;
  print(
    `\njob webhooks: ${webhooks.deliveries} deliveries, ${webhooks.refused} refused on purpose, ${webhooks.unsigned} not signed with the key's secret`,
  );
  for (const [name, exits] of Object.entries(report.crashes))
    print(`\n${name} exited on its own (and was started again): ${exits.join('; ')}`);
  if (!report.quiesced.quiet) print(`\nthe product did not settle in time: ${JSON.stringify(report.quiesced.left)} left`);
  print(`\nreport: ${path}`);
  print(lastLine(report));
  process.exitCode = violationCount(report.invariants) > 0 ? 1 : 0;
}

main().catch(async (error: unknown) => {
  log(`the run failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
  await cleanUp();
  process.exit(2);
});
