import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inject, vi } from 'vitest';
import { cloneTemplate, setTestDatabaseUrl } from './test-database';

// Every integration test file sees a database of its own and its own data dir for stored files.
// A worker runs file after file in one process (`npm run test:integration` runs with
// --no-isolate, vitest.config.ts), so before each file but the first this ends what the previous
// file's modules left running, reloads the project's own modules (the server's: their caches,
// pools and settings start afresh; the libraries in node_modules stay loaded, which is the time
// saved) and puts the environment back as the worker started. Files that start processes stop
// them in their afterAll.
const BASE_ENV = Symbol.for('wgs.test.base-env');
const worker = globalThis as { [BASE_ENV]?: Record<string, string | undefined> };
const baseEnv = worker[BASE_ENV];
if (baseEnv) {
  await endPreviousFile();
  vi.resetModules();
  for (const name of Object.keys(process.env)) if (!(name in baseEnv)) delete process.env[name];
  Object.assign(process.env, baseEnv);
} else {
  worker[BASE_ENV] = { ...process.env };
}

const database = await cloneTemplate(inject('testDatabases'), 'file');
setTestDatabaseUrl(database.url);
process.env.DATABASE_URL = database.url;
process.env.WGS_DATA_DIR ??= mkdtempSync(join(tmpdir(), 'wgs-files-'));
process.env.SIGNING_SECRET ??= 'test-signing-secret-0123456789abcdef0123456789';
process.env.PUBLIC_BASE_URL ??= 'http://127.0.0.1:3999';
process.env.RUN_WORKER = 'false';
process.env.LOG_FORMAT ??= 'off';
// The circuit breaker's state lives in the database, and test files reuse provider names: it is
// off unless a test turns it on (tests/integration/provider-fallbacks.test.ts).
process.env.PROVIDER_CIRCUIT_FAILURES ??= '0';

/** What an instance started registers to stop (shutdown hooks), the job queue's sender, the pools and Redis. */
async function endPreviousFile(): Promise<void> {
  const [{ stopJobQueue }, { disconnectDb }, { runShutdownHooks }] = await Promise.all([
    import('@/server/domain/queue/job-queue'),
    import('@/server/db/client'),
    import('@/server/lifecycle/shutdown-hooks'),
  ]);
  await runShutdownHooks();
  await stopJobQueue();
  await disconnectDb();
}
