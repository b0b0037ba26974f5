import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Config } from './index';

// Secrets that must be shared by every instance (URL signing, session signing). In
// production they come from the environment; on a single machine they are generated once
// into the data dir so `npm start` needs no setup.
function persistedSecret(config: Config, name: string): string {
  mkdirSync(config.dataDir, { recursive: true });
  const file = join(config.dataDir, `${name}.secret`);
  if (!existsSync(file)) writeFileSync(file, randomBytes(32).toString('base64url'), { mode: 0o600 });
  return readFileSync(file, 'utf8').trim();
}

/** The secret provider keys are encrypted under: PROVIDER_KEYS_SECRET, else one generated into the data dir. */
export function providerKeysSecret(config: Config): string {
  return config.PROVIDER_KEYS_SECRET ?? persistedSecret(config, 'provider-keys');
}

export function ensureLocalSecrets(config: Config): void {
  if (!config.SIGNING_SECRET) {
    const secret = persistedSecret(config, 'signing');
    process.env.SIGNING_SECRET = secret;
    config.SIGNING_SECRET = secret;
  }
  process.env.NEXTAUTH_SECRET ??= persistedSecret(config, 'nextauth');
  process.env.NEXTAUTH_URL ??= `http://localhost:${config.PORT}`;
}
