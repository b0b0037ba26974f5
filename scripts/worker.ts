// `npm run worker`: video job workers only, for production deployments that run them apart
// from the web servers (any number of these may run, on any number of machines). Uses
// DATABASE_URL, or the data dir's embedded PostgreSQL (shared with `npm start` if it runs).
// With --production (`npm run worker:production`): DATABASE_URL and the shared secrets are
// required, and a schema that is behind is refused unless MIGRATE_ON_START=true.
import { getConfig } from '../server/config';
import { disconnectDb } from '../server/db/client';
import { provideDatabase } from '../server/db/provide-database';
import { isProductionMode, migratesAtStart, requireProductionSettings } from '../server/instance/production-mode';
import { markStopping, onShutdown, runShutdownHooks } from '../server/lifecycle/shutdown-hooks';
import { startWorker } from '../server/jobs/worker';
import { startBackgroundTasks } from '../server/instance/background';
import { onStopSignals } from './lib/stop-signals';

const log = (line: string) => process.stdout.write(`[wgs-worker] ${line}\n`);

async function main(): Promise<void> {
  const config = getConfig();
  const production = isProductionMode();
  if (production) requireProductionSettings(config, 'worker');
  // Not adopt: a worker shares a running server's embedded PostgreSQL and never stops it. When
  // it started one itself, running jobs finish and the pool closes before that server stops.
  const database = await provideDatabase({ log, beforeStop: runShutdownHooks, migrate: migratesAtStart(config, production) });
  onShutdown(disconnectDb);
  const worker = await startWorker();
  onShutdown(async () => {
    await worker.stop().catch((error: unknown) => log(`stop failed: ${String(error)}`));
  });
  startBackgroundTasks(); // sweeps are safe on any number of processes
  log(`working on video jobs (concurrency ${config.WORKER_CONCURRENCY}, pid ${process.pid})`);

  const stop = async (signal: string) => {
    markStopping();
    log(`${signal}: finishing running jobs, then stopping`);
    setTimeout(() => process.exit(1), 60_000).unref(); // a database that hangs must not keep it alive
    await runShutdownHooks(); // running jobs finish, then the pool closes
    if (database.embedded) await database.stop().catch(() => {});
    process.exit(0);
  };
  onStopSignals(
    (signal) => void stop(signal),
    (signal) => {
      log(`${signal} again: exiting now (jobs cut short are retried by another worker)`);
      process.exit(1);
    },
  );
}

main().catch((error: unknown) => {
  process.stderr.write(`[wgs-worker] failed to start: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
