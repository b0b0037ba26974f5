import sql from 'sql-template-tag';
import { prepared } from '../../db/named-statement';
import { getPool } from '../../db/client';
import { buildEngine, type ProviderSettings } from '../../providers/build-engine';
import { ProviderUnavailableError, type Engine } from '../../providers/engine';
import { localEngine } from '../../providers/local/local-engine';
import { SecretDecryptError } from '../../secrets/secret-cipher';
import { openWithConfiguredSecret } from '../../secrets/sealed-secrets';
import { isProviderType } from '../../contract/provider-types';
import { environmentVariable } from '../../config/environment';
import { apiKeyEnvProblem } from './provider-guard';

// Engine names come from package versions: `local`, or `PROVIDER:MODEL` for a provider row.
// The row and its key are read here and handed to buildEngine; engines are cached briefly. The
// secret is read by readProviderApiKey, never from the row itself.

const PROVIDER_CACHE_MS = 10_000;
const engines = new Map<string, { engine: Engine; until: number }>();

export interface ProviderRow extends ProviderSettings {
  api_key_env: string | null;
}

export async function resolveEngine(engineName: string): Promise<Engine> {
  if (engineName === 'local') return localEngine;
  const cached = engines.get(engineName);
  if (cached && cached.until > Date.now()) return cached.engine;

  const separator = engineName.indexOf(':');
  const providerName = engineName.slice(0, separator);
  const model = engineName.slice(separator + 1);
  const { rows } = await getPool().query<Omit<ProviderRow, 'type'> & { type: string }>(
    prepared(
      'wgs-provider-by-name',
      sql`SELECT name, type, base_url, api_key_env, options, prices FROM providers WHERE name = ${providerName}`,
    ),
  );
  const row = rows[0];
  if (!row || !isProviderType(row.type)) {
    console.error(`[engine ${engineName}] provider "${providerName}" is not configured`);
    throw new ProviderUnavailableError(`provider ${providerName} is not configured`, 30, { kind: 'not_configured' });
  }
  const provider: ProviderRow = { ...row, type: row.type };
  const engine = await buildEngine(provider, model, await readProviderApiKey(provider));
  engines.set(engineName, { engine, until: Date.now() + PROVIDER_CACHE_MS });
  return engine;
}

/** The operator-set key of a provider, decrypted; undefined when none is stored. Throws SecretDecryptError. */
async function readStoredProviderKey(provider: string): Promise<string | undefined> {
  const { rows } = await getPool().query<{ iv: Buffer; ciphertext: Buffer; auth_tag: Buffer }>(
    prepared('wgs-provider-key', sql`SELECT iv, ciphertext, auth_tag FROM provider_keys WHERE provider = ${provider}`),
  );
  const row = rows[0];
  if (!row) return undefined;
  return openWithConfiguredSecret(provider, { iv: row.iv, ciphertext: row.ciphertext, authTag: row.auth_tag });
}

/**
 * A provider's API key: the one an operator stored (`providers set-key`, the dashboard) comes
 * first, as it is the newer word that needs no redeploy; else the environment variable the
 * provider names; a provider that names none and has none stored needs no key (self-hosted).
 * A row whose api_key_env is not a provider key variable (written before the rule, or by hand)
 * is refused before anything is read: no variable outside the allowlist is ever sent.
 */
export async function readProviderApiKey(provider: Pick<ProviderRow, 'name' | 'type' | 'api_key_env'>): Promise<string | undefined> {
  const refused = provider.api_key_env ? apiKeyEnvProblem(provider.type, provider.api_key_env) : undefined;
  if (refused) {
    const message = `provider ${provider.name} is refused: api_key_env ${refused}`;
    console.error(`[provider ${provider.name}] ${message}`);
    throw new ProviderUnavailableError(message, 30, { kind: 'not_configured' });
  }
  let stored: string | undefined;
  try {
    stored = await readStoredProviderKey(provider.name);
  } catch (error) {
    if (!(error instanceof SecretDecryptError)) throw error;
    console.error(`[provider ${provider.name}] ${error.message}`);
    throw new ProviderUnavailableError(error.message, 30, { kind: 'not_configured' });
  }
  if (stored !== undefined) return stored;
  return provider.api_key_env ? environmentVariable(provider.api_key_env) : 'not-required';
}

/** Drops the cached engines of a provider whose key just changed (this instance; others within PROVIDER_CACHE_MS). */
export function forgetProviderEngines(providerName: string): void {
  for (const name of engines.keys()) if (name.startsWith(`${providerName}:`)) engines.delete(name);
}
