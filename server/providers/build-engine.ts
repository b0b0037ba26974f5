import { getConfig } from '../config';
import { AiSdkEngine } from './ai-sdk/ai-sdk-engine';
import type { SdkModels } from './ai-sdk/provider-module';
import { providerFetch } from './ai-sdk/provider-fetch';
import { mediaFetch } from './capped-fetch';
import { loadProviderModule, type SdkProviderType } from './ai-sdk/types';
import { allowProviderPrivateOrigin } from './outbound/provider-door';
import type { Engine, ModelPrices } from './engine';
import type { ProviderType } from '../contract/provider-types';

// The engine of one provider row and model. The row and its key are read by the domain
// (server/domain/providers/resolve-engine.ts) and handed in; nothing here touches the database.
// Each provider's SDK client is built once and kept while its row and key are unchanged.

const sdkClients = new Map<string, { fingerprint: string; models: SdkModels; fetch: typeof fetch }>();

/** What an engine needs of a `providers` row. */
export interface ProviderSettings {
  name: string;
  type: ProviderType;
  base_url: string | null;
  options: Record<string, string> | null;
  /** The operator's prices per model (packages file `prices`, the Providers page). */
  prices?: Record<string, ModelPrices> | null;
}

async function sdkClientOf(provider: ProviderSettings, apiKey: string | undefined, timeoutMs: number, maxRetries: number) {
  const providerModule = await loadProviderModule(provider.type as SdkProviderType);
  // The operator named this server: it may be on a private network (Ollama on 127.0.0.1), and so
  // may the files it links to on the same origin. Nothing else a provider names may be.
  allowProviderPrivateOrigin(`provider:${provider.name}`, provider.base_url);
  const extras = provider.options ?? {};
  const fingerprint = JSON.stringify([provider.type, provider.base_url, extras, apiKey, timeoutMs, maxRetries]);
  const cached = sdkClients.get(provider.name);
  if (cached && cached.fingerprint === fingerprint) return { providerModule, ...cached };
  const throughFetch = providerModule.apiHosts !== undefined;
  const fetch = providerFetch({
    apiKey,
    timeoutMs,
    origin: throughFetch ? (provider.base_url ?? undefined) : undefined,
    hosts: providerModule.apiHosts,
  });
  const baseURL = throughFetch ? undefined : (provider.base_url ?? undefined);
  const models = providerModule.create({ baseURL, apiKey: apiKey ?? 'not-set', extras, fetch, timeoutMs, maxRetries });
  sdkClients.set(provider.name, { fingerprint, models, fetch });
  return { providerModule, models, fetch };
}

export async function buildEngine(provider: ProviderSettings, model: string, apiKey: string | undefined): Promise<Engine> {
  const config = getConfig();
  const client = await sdkClientOf(provider, apiKey, config.PROVIDER_TIMEOUT_MS, config.PROVIDER_MAX_RETRIES);
  const sdk = {
    name: provider.name,
    module: client.providerModule,
    models: client.models,
    apiKey,
    maxRetries: config.PROVIDER_MAX_RETRIES,
    // Only for media URLs a provider answers with: no credentials, whatever the SDK's fetch holds.
    fetch: mediaFetch(config.PROVIDER_TIMEOUT_MS),
    apiFetch: client.fetch,
    type: provider.type,
    prices: provider.prices ?? {},
  };
  return new AiSdkEngine(sdk, model);
}
