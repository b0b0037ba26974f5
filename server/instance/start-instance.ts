import { startBackgroundTasks } from './background';
import { getConfig } from '../config';
import { disconnectDb, getPrisma, getSqlDb } from '../db/client';
import { drainPendingReleases } from '../domain/billing/pending-releases';
import { listenForKeyCacheChanges } from '../domain/keys/key-cache-invalidation';
import { listenForSharedRefusals } from '../domain/rate-limit/auth-failures';
import { DEFAULT_SEED_FILE, seedExamplePackages } from '../domain/packages/seed-example-packages';
import { refusedProviderLines } from '../domain/providers/refused-providers';
import { sealLegacyWebhookSecrets } from '../domain/webhooks/webhook-secrets';
import { startWorker } from '../jobs/worker';
import { startObservability } from '../observability/start-observability';
import { onShutdown } from '../lifecycle/shutdown-hooks';

const log = (line: string) => process.stdout.write(`[wgs] ${line}\n`);

// Once per process: `npm start` starts it beside the API it serves itself, and Next's
// instrumentation hook (the same module, loaded from the server package) then finds it started;
// under `next dev` the hook starts it.
let started: Promise<void> | undefined;

/**
 * What an app instance runs beside its HTTP handlers: the example packages on an empty
 * database, the housekeeping sweeps, and video job workers unless RUN_WORKER=false.
 */
export function startInstance(): Promise<void> {
  started ??= runInstance();
  return started;
}

async function runInstance(): Promise<void> {
  const config = getConfig();
  const seeded = await seedExamplePackages(getPrisma(), getSqlDb(), config.SEED_PACKAGES_FILE);
  if (seeded.length > 0) log(`empty database: applied ${config.SEED_PACKAGES_FILE ?? DEFAULT_SEED_FILE} (${seeded.join(', ')})`);
  for (const line of await refusedProviderLines(getPrisma())) process.stderr.write(`[wgs] error: ${line}\n`);
  const sealed = await sealLegacyWebhookSecrets(getPrisma(), getSqlDb());
  if (sealed > 0) log(`encrypted ${sealed} webhook signing secret(s) stored in plain text by an earlier version`);
  // Checkout's return URLs then follow each request's Host: said once, where the operator looks (docs/selling.md).
  if (config.STRIPE_SECRET_KEY && !config.PUBLIC_BASE_URL) {
    log(
      "notice: selling is on and PUBLIC_BASE_URL is unset: Checkout's success and cancel URLs name the origin each request came with (its Host header, or a trusted proxy's X-Forwarded-Host); set PUBLIC_BASE_URL to the public origin",
    );
  }
  startBackgroundTasks();
  onShutdown(disconnectDb);
  const keyCacheListener = listenForKeyCacheChanges();
  onShutdown(() => keyCacheListener.stop());
  const refusalListener = listenForSharedRefusals();
  if (refusalListener) onShutdown(() => refusalListener.stop());
  await startObservability(log);
  // Hooks run last registered first: releases the database refused earlier are written before it closes.
  onShutdown(drainPendingReleases);
  if (config.RUN_WORKER === 'true') {
    const worker = await startWorker();
    onShutdown(() => worker.stop());
    log(`video job worker running (concurrency ${config.WORKER_CONCURRENCY})`);
  }
}
