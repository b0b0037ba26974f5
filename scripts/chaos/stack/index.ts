import { chmodSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../../../server/db/free-port';
import { startChatProvider, type ChatProvider } from '../fakes/chat-provider';
import { startChaosStripe, type ChaosStripe } from '../fakes/stripe';
import { startWebhookReceiver, type WebhookReceiver } from '../fakes/webhook-receiver';
import type { Clock, FaultLog } from '../faults/fault-log';
import { onCleanup, removeAtCleanup } from './cleanup';
import { productEnvironment, STRIPE_WEBHOOK_SECRET } from './environment';
import { startPostgres, type ChaosPostgres } from './postgres';
import { appInstance, workerProcess, type ProductProcess } from './processes';
import { setUpBooks, type IssuedKey } from './setup';

// Everything a run drives, on 127.0.0.1 and a temporary data dir: the harness's PostgreSQL, the
// fakes (the provider, Stripe, the webhook receiver), the books set up, two app instances on that
// one database and the video worker.

export interface Stack {
  postgres: ChaosPostgres;
  instances: ProductProcess[];
  worker: ProductProcess;
  chat: ChatProvider;
  stripe: ChaosStripe;
  webhooks: WebhookReceiver;
  keys: IssuedKey[];
  saleVersions: Record<string, string>;
}

/** This process's settings for the setup it does itself (webhook secrets are sealed under the apps' key). */
function shareSettings(env: NodeJS.ProcessEnv): void {
  for (const name of [
    'DATABASE_URL',
    'PROVIDER_KEYS_SECRET',
    'WEBHOOK_ALLOW_PRIVATE_NETWORKS',
    'WGS_DATA_DIR',
    'STRIPE_SECRET_KEY',
    'STRIPE_WEBHOOK_SECRET', // set together, or the settings are refused
  ] as const)
    process.env[name] = env[name];
}

export async function startStack(clock: Clock, faults: FaultLog, logDir: string, log: (line: string) => void): Promise<Stack> {
  const runDir = mkdtempSync(join(tmpdir(), 'wgs-chaos-'));
  chmodSync(runDir, 0o711); // run as root, PostgreSQL runs as the user `postgres`, who must pass through it
  removeAtCleanup(runDir);
  const postgres = await startPostgres(join(runDir, 'pg'));
  onCleanup(() => postgres.stop());
  log(`PostgreSQL on ${new URL(postgres.url).port}, data in ${runDir}`);
  const chat = await startChatProvider(clock, faults);
  const webhooks = await startWebhookReceiver(faults);
  const stripe = await startChaosStripe(STRIPE_WEBHOOK_SECRET);
  onCleanup(() => Promise.all([chat.close(), webhooks.close(), stripe.close()]).then(() => undefined));
  const env = productEnvironment({ databaseUrl: postgres.url, dataDir: join(runDir, 'data'), stripeBase: stripe.fake.apiBase });
  shareSettings(env);
  const { keys, saleVersions } = await setUpBooks(postgres.url, chat.baseUrl, webhooks.urlFor);
  for (const key of keys) webhooks.setSecret(key.name, key.webhookSecret);
  const instances = [appInstance('a', await freePort(), env, logDir), appInstance('b', await freePort(), env, logDir)];
  const worker = workerProcess(env, logDir);
  log('starting two app instances and the worker');
  await Promise.all([...instances, worker].map((process) => process.start()));
  return { postgres, instances, worker, chat, stripe, webhooks, keys, saleVersions };
}
