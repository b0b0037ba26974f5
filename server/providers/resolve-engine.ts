import { getConfig } from '../config';
import { getPool } from '../db/client';
import { AiSdkEngine } from './ai-sdk/ai-sdk-engine';
import type { SdkModels } from './ai-sdk/provider-module';
import { providerFetch } from './ai-sdk/provider-fetch';
import { loadProviderModule, type SdkProviderType } from './ai-sdk/types';
import { ProviderUnavailableError, type Engine, type ModelPrices } from './engine';
import { localEngine } from './local/local-engine';
import { ProviderKeyDecryptError } from './provider-keys/key-cipher';
import { readStoredProviderKey } from './provider-keys/stored-provider-keys';
import { isProviderType } from './provider-types';

// Engine names come from package versions: `local`, or `PROVIDER:MODEL` for a provider row.
// Provider rows are cached briefly; the secret is read by readProviderApiKey, never from the
// row itself. Each provider's SDK client is built once and kept while its row and key are unchanged.

const PROVIDER_CACHE_MS = 10_000;
const engines = new Map<string, { engine: Engine; until: number }>();
const sdkClients = new Map<string, { fingerprint: string; models: SdkModels; fetch: typeof fetch }>();

export interface ProviderRow {
  name: string;
  type: string;
  base_url: string | null;
  api_key_env: string | null;
  options: Record<string, string> | null;
  /** The operator's prices per model (packages file `prices`, the Providers page). */
  prices?: Record<string, ModelPrices> | null;
}

async function sdkClientOf(provider: ProviderRow, apiKey: string | undefined, timeoutMs: number, maxRetries: number) {
  const providerModule = await loadProviderModule(provider.type as SdkProviderType);
  const extras = provider.options ?? {};
  const fingerprint = JSON.stringify([provider.type, provider.base_url, extras, apiKey, timeoutMs, maxRetries]);
  const cached = sdkClients.get(provider.name);
  if (cached && cached.fingerprint === fingerprint) return { providerModule, ...cached };
  const throughFetch = providerModule.apiHosts !== undefined;
  const fetch = providerFetch({
    timeoutMs,
    origin: throughFetch ? (provider.base_url ?? undefined) : undefined,
    hosts: providerModule.apiHosts,
  });
  const baseURL = throughFetch ? undefined : (provider.base_url ?? undefined);
  const models = providerModule.create({ baseURL, apiKey: apiKey ?? 'not-set', extras, fetch, timeoutMs, maxRetries });
  sdkClients.set(provider.name, { fingerprint, models, fetch });
  return { providerModule, models, fetch };
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
    text: 'SELECT name, type, base_url, api_key_env, options, prices FROM providers WHERE name = $1',
    values: [providerName],
  });
  const provider = rows[0];
  if (!provider || !isProviderType(provider.type)) {
    console.error(`[engine ${engineName}] provider "${providerName}" is not configured`);
    throw new ProviderUnavailableError(`provider ${providerName} is not configured`, 30, { kind: 'not_configured' });
  }
  const engine = await buildEngine(provider, model, await readProviderApiKey(provider));
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

async function buildEngine(provider: ProviderRow, model: string, apiKey: string | undefined): Promise<Engine> {
  const config = getConfig();
  const client = await sdkClientOf(provider, apiKey, config.PROVIDER_TIMEOUT_MS, config.PROVIDER_MAX_RETRIES);
  const sdk = {
    name: provider.name,
    module: client.providerModule,
    models: client.models,
    apiKey,
    maxRetries: config.PROVIDER_MAX_RETRIES,
    fetch: client.fetch,
    type: provider.type,
    prices: provider.prices ?? {},
  };
  return new AiSdkEngine(sdk, model);
}
