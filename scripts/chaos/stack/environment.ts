import { randomBytes } from 'node:crypto';
import { PROVIDER_KEY_ENV } from './packages';

// The settings every process of the run shares: the harness's PostgreSQL, one data dir (the local
// object store every instance and the worker read), the secrets instances must agree on, and the
// product's own settings shortened so that the run quiesces in seconds (leases, sweeps, job
// heartbeats and retries, webhook retries), set through its configuration as an operator would.

export const STRIPE_WEBHOOK_SECRET = `whsec_chaos_${randomBytes(12).toString('hex')}`;

/** Short leases: a dead request's key and units are settled within seconds (the hold outlives the claim). */
const LEASE_SECONDS = { idempotency: 10, hold: 12 };

export function productEnvironment(options: { databaseUrl: string; dataDir: string; stripeBase: string }): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const name of ['NODE_OPTIONS', 'TEST_DATABASE_URL', 'PUBLIC_BASE_URL', 'REDIS_URL', 'PORT', 'HOST']) delete env[name];
  return {
    ...env,
    NODE_ENV: 'production',
    NEXT_TELEMETRY_DISABLED: '1',
    NEXT_DIST_DIR: process.env.NEXT_DIST_DIR || '.next',
    DATABASE_URL: options.databaseUrl,
    WGS_DATA_DIR: options.dataDir,
    SIGNING_SECRET: randomSecret('signing'),
    NEXTAUTH_SECRET: randomSecret('nextauth'),
    PROVIDER_KEYS_SECRET: randomSecret('provider-keys'),
    RUN_WORKER: 'false',
    LOG_FORMAT: 'json',
    IDEMPOTENCY_LEASE_SECONDS: String(LEASE_SECONDS.idempotency),
    HOLD_LEASE_SECONDS: String(LEASE_SECONDS.hold),
    PROVIDER_TIMEOUT_MS: '4000',
    PROVIDER_MAX_RETRIES: '0',
    JOB_HEARTBEAT_SECONDS: '10',
    JOB_SUPERVISE_INTERVAL_SECONDS: '2',
    JOB_RETRY_DELAY_SECONDS: '1',
    JOB_EXPIRE_SECONDS: '60',
    JOB_CANCEL_CHECK_SECONDS: '0.3',
    JOB_POLL_INTERVAL_SECONDS: '0.5',
    WEBHOOK_RETRY_SCHEDULE_SECONDS: '1,2,4',
    WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
    STRIPE_SECRET_KEY: 'sk_test_chaos',
    STRIPE_WEBHOOK_SECRET,
    STRIPE_API_BASE: options.stripeBase,
    CHECKOUT_STARTS_PER_MINUTE: '100000',
    TOP_UP_STARTS_PER_MINUTE: '100000',
    AUTH_FAILURES_PER_MINUTE: '100000',
    [PROVIDER_KEY_ENV]: 'sk-chaos-provider-key',
  };
}

const secrets = new Map<string, string>();
function randomSecret(name: string): string {
  if (!secrets.has(name)) secrets.set(name, randomBytes(32).toString('base64url'));
  return secrets.get(name)!;
}
