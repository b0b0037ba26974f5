import type { PrismaClient } from '../../db/generated/client';
import type { ModelPrices } from '../../providers/engine';
import { apiKeyEnvProblem } from './provider-guard';
import { environmentCopy } from '../../config/environment';

export type ProviderKeySource = 'stored' | 'env' | 'none' | 'refused';

export interface ProviderView {
  name: string;
  type: string;
  base_url: string | null;
  api_key_env: string | null;
  /** The operator's prices per model id, overriding the genai-prices table (docs/providers.md). */
  prices: Record<string, ModelPrices>;
  /**
   * Where the key the engines use comes from: `stored` (set by an operator, used first), `env`
   * (the variable api_key_env names is set in this process's environment), `none`, or
   * `refused`: api_key_env is not a provider key variable, so no call is made through the
   * provider and whether that variable is set is not looked at (`problem` says why).
   */
  key: { set: boolean; source: ProviderKeySource; updated_at: string | null; problem?: string };
}

/** Every provider with its key status; never a key itself. */
export async function listProviders(db: PrismaClient, env: NodeJS.ProcessEnv = environmentCopy()): Promise<ProviderView[]> {
  const [providers, keys] = await Promise.all([
    db.provider.findMany({ orderBy: { name: 'asc' } }),
    db.providerKey.findMany({ select: { provider: true, updatedAt: true } }),
  ]);
  const stored = new Map(keys.map((key) => [key.provider, key.updatedAt]));
  return providers.map((provider) => {
    const storedAt = stored.get(provider.name);
    const view = {
      name: provider.name,
      type: provider.type,
      base_url: provider.baseUrl,
      api_key_env: provider.apiKeyEnv,
      prices: (provider.prices ?? {}) as Record<string, ModelPrices>,
    };
    const problem = provider.apiKeyEnv ? apiKeyEnvProblem(provider.type, provider.apiKeyEnv) : undefined;
    if (problem) return { ...view, key: { set: false, source: 'refused' as const, updated_at: null, problem: `api_key_env ${problem}` } };
    const inEnv = Boolean(provider.apiKeyEnv && env[provider.apiKeyEnv]);
    const source: ProviderKeySource = storedAt ? 'stored' : inEnv ? 'env' : 'none';
    return { ...view, key: { set: source !== 'none', source, updated_at: storedAt?.toISOString() ?? null } };
  });
}
