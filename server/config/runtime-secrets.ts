import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { makeDataDir } from './data-dir';
import { settleConfig, type Config } from './index';

// Secrets that must be shared by every instance (URL signing, session signing). In
// production they come from the environment; on a single machine they are generated once
// into the data dir so `npm start` needs no setup.
function persistedSecret(config: Config, name: string): string {
  makeDataDir(config.dataDir);
  const file = join(config.dataDir, `${name}.secret`);
  if (!existsSync(file)) writeFileSync(file, randomBytes(32).toString('base64url'), { mode: 0o600 });
  return readFileSync(file, 'utf8').trim();
}

/** The secret provider keys are encrypted under: PROVIDER_KEYS_SECRET, else one generated into the data dir. */
export function providerKeysSecret(config: Config): string {
  return config.PROVIDER_KEYS_SECRET ?? persistedSecret(config, 'provider-keys');
}

/**
 * The operator CLI in production on a database others share (DATABASE_URL): a secret generated
 * into its own data dir would seal provider keys and webhook secrets no instance or worker can
 * open. On the data dir's embedded database (one machine, as `npm start`) the data dir's is right.
 */
export function requireSharedProviderKeysSecret(config: Config): void {
  if (!config.DATABASE_URL || config.PROVIDER_KEYS_SECRET) return;
  throw new Error(
    'production mode needs PROVIDER_KEYS_SECRET with DATABASE_URL (docs/deploy.md): the CLI generates no secret, since what it seals must open in every instance and worker',
  );
}

/**
 * `npm start` on one machine: the signing and session secrets the environment leaves unset are
 * generated into the data dir, and the dashboard's URL defaults to this port's.
 */
export function ensureLocalSecrets(config: Config): void {
  settleConfig({
    SIGNING_SECRET: config.SIGNING_SECRET ?? persistedSecret(config, 'signing'),
    NEXTAUTH_SECRET: config.NEXTAUTH_SECRET ?? persistedSecret(config, 'nextauth'),
    NEXTAUTH_URL: config.NEXTAUTH_URL ?? `http://localhost:${config.PORT}`,
  });
}
