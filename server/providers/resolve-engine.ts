import { getConfig } from '../config';
import { getPool } from '../db/client';
import { ProviderUnavailableError, type Engine } from './engine';
import { localEngine } from './local/local-engine';
import { OpenAiEngine } from './openai/openai-engine';
import { ProviderKeyDecryptError } from './provider-keys/key-cipher';
import { readStoredProviderKey } from './provider-keys/stored-provider-keys';

// Engine names come from package versions: `local`, or `PROVIDER:MODEL` for a provider row.
// Provider rows (and their keys) are cached briefly: a key set with `providers set-key` is used
// at once by the instance that set it, and by every other instance within PROVIDER_CACHE_MS.

const PROVIDER_CACHE_MS = 10_000;
const engines = new Map<string, { engine: Engine; until: number }>();

export interface ProviderRow {
  name: string;
  type: string;
  base_url: string;
  api_key_env: string | null;
}

export async function resolveEngine(engineName: string): Promise<Engine> {
  if (engineName === 'local') return localEngine;
  const cached = engines.get(engineName);
  if (cached && cached.until > Date.now()) return cached.engine;

  const separator = engineName.indexOf(':');
  const providerName = engineName.slice(0, separator);
  const model = engineName.slice(separator + 1);
  const { rows } = await getPool().query<ProviderRow>({
    name: 'wgs-provider-by-name',
    text: 'SELECT name, type, base_url, api_key_env FROM providers WHERE name = $1',
    values: [providerName],
  });
  const provider = rows[0];
  if (!provider || provider.type !== 'openai') {
    console.error(`[engine ${engineName}] provider "${providerName}" is not configured`);
    throw new ProviderUnavailableError(`provider ${providerName} is not configured`, 30, { kind: 'not_configured' });
  }
  const config = getConfig();
  const engine = new OpenAiEngine(
    {
      name: provider.name,
      baseUrl: provider.base_url,
      apiKey: await readProviderApiKey(provider),
      timeoutMs: config.PROVIDER_TIMEOUT_MS,
      maxRetries: config.PROVIDER_MAX_RETRIES,
    },
    model,
  );
  engines.set(engineName, { engine, until: Date.now() + PROVIDER_CACHE_MS });
  return engine;
}

/**
 * A provider's API key: the one an operator stored (`providers set-key`, the dashboard) comes
 * first, as it is the newer word that needs no redeploy; else the environment variable the
 * provider names; a provider that names none and has none stored needs no key (self-hosted).
 */
export async function readProviderApiKey(provider: ProviderRow): Promise<string | undefined> {
  let stored: string | undefined;
  try {
    stored = await readStoredProviderKey(provider.name);
  } catch (error) {
    if (!(error instanceof ProviderKeyDecryptError)) throw error;
    console.error(`[provider ${provider.name}] ${error.message}`);
    throw new ProviderUnavailableError(error.message, 30, { kind: 'not_configured' });
  }
  if (stored !== undefined) return stored;
  return provider.api_key_env ? process.env[provider.api_key_env] : 'not-required';
}

/** Drops the cached engines of a provider whose key just changed (this instance; others within PROVIDER_CACHE_MS). */
export function forgetProviderEngines(providerName: string): void {
  for (const name of engines.keys()) if (name.startsWith(`${providerName}:`)) engines.delete(name);
}
