// `npm start`: the whole product in one process. Provides the database (embedded unless
// DATABASE_URL is set), migrates it, seeds the example packages into an empty database,
// builds the app when no build exists, then serves API and dashboard on PORT.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { join } from 'node:path';
import next from 'next';
import { getConfig } from '../server/config';
import { disconnectDb, getPool, getPrisma } from '../server/db/client';
import { provideDatabase } from '../server/db/provide-database';
import { SYSTEM_ACTOR } from '../server/domain/actor';
import { applyPackages, parsePackagesFile } from '../server/domain/packages/apply-packages';
import { startWorker, type RunningWorker } from '../server/jobs/worker';
import { ensureLocalSecrets } from '../server/runtime-secrets';

const log = (line: string) => process.stdout.write(`[wgs] ${line}\n`);

const SEED_LOCK_ID = 72707370; // instances starting together seed the example packages once

async function seedPackages(): Promise<void> {
  const prisma = getPrisma();
  const file = getConfig().SEED_PACKAGES_FILE;
  if (!existsSync(file)) return;
  const lock = await getPool().connect();
  try {
    await lock.query('SELECT pg_advisory_lock($1)', [SEED_LOCK_ID]);
    if ((await prisma.package.count()) > 0) return;
    const result = await applyPackages(prisma, SYSTEM_ACTOR, parsePackagesFile(JSON.parse(readFileSync(file, 'utf8'))));
    log(`empty database: applied ${file} (${result.packages.map((p) => p.slug).join(', ')})`);
  } finally {
    await lock.query('SELECT pg_advisory_unlock($1)', [SEED_LOCK_ID]).catch(() => {});
    lock.release();
  }
}

function buildIfMissing(): void {
  if (existsSync(join(process.cwd(), process.env.NEXT_DIST_DIR || '.next', 'BUILD_ID'))) return;
  log('no build found: running next build (about a minute)');
  const build = spawnSync(process.execPath, ['node_modules/next/dist/bin/next', 'build'], {
    stdio: 'inherit',
    env: { ...process.env, NEXT_TELEMETRY_DISABLED: '1' },
  });
  if (build.status !== 0) throw new Error('next build failed');
}

async function main(): Promise<void> {
  process.env.NEXT_TELEMETRY_DISABLED = '1';
  const config = getConfig();
  ensureLocalSecrets(config);
  buildIfMissing();
  const database = await provideDatabase({ adopt: true, log });
  await seedPackages();
  await disconnectDb();

  const app = next({ dev: false, dir: process.cwd(), hostname: config.HOST, port: config.PORT });
  await app.prepare();
  const handle = app.getRequestHandler();
  const server = createServer((req, res) => void handle(req, res));
  server.keepAliveTimeout = 65_000;
  await new Promise<void>((resolve) => server.listen(config.PORT, config.HOST, resolve));
  log(`serving on http://localhost:${config.PORT} (API under /v1, dashboard at /)`);
  // Video job workers in this process unless RUN_WORKER=false (then run `npm run worker` apart).
  let worker: RunningWorker | undefined;
  if (config.RUN_WORKER === 'true') {
    worker = await startWorker();
    log(`video job worker running (concurrency ${config.WORKER_CONCURRENCY})`);
  }

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    log(`${signal}: shutting down`);
    server.close();
    server.closeAllConnections();
    await worker?.stop().catch(() => {});
    await disconnectDb().catch(() => {});
    await database.stop().catch(() => {});
    process.exit(0);
  };
  process.on('SIGINT', () => void stop('SIGINT'));
  process.on('SIGTERM', () => void stop('SIGTERM'));
}

main().catch((error: unknown) => {
  process.stderr.write(`[wgs] failed to start: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
