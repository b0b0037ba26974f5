import { getConfig } from '../config';
import { getPool } from '../db/client';
import { ProviderUnavailableError, type Engine } from './engine';
import { localEngine } from './local/local-engine';
import { OpenAiEngine } from './openai/openai-engine';

// Engine names come from package versions: `local`, or `PROVIDER:MODEL` for a provider row.
// Provider rows are cached briefly; the secret is read from the environment variable the
// row names, never from the database.

const PROVIDER_CACHE_MS = 10_000;
const engines = new Map<string, { engine: Engine; until: number }>();

interface ProviderRow {
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
    throw new ProviderUnavailableError(`provider ${providerName} is not configured`, 30);
  }
  const config = getConfig();
  const engine = new OpenAiEngine(
    {
      name: provider.name,
      baseUrl: provider.base_url,
      // A provider that names no variable needs no key (some self-hosted servers).
      apiKey: provider.api_key_env ? process.env[provider.api_key_env] : 'not-required',
      timeoutMs: config.PROVIDER_TIMEOUT_MS,
      maxRetries: config.PROVIDER_MAX_RETRIES,
    },
    model,
  );
  engines.set(engineName, { engine, until: Date.now() + PROVIDER_CACHE_MS });
  return engine;
}
