import type { SqlDb } from '../../db/client';
import type { PrismaClient } from '../../db/generated/client';
import { isProviderType, operationsOf, PROVIDER_TYPE_INFO } from '../../contract/provider-types';
import { ApiError } from '../errors';
import type { Operation } from '../operations';
import { healthOf, providerHealth, type ProviderHealth } from '../reports/provider-health';
import { listProviders, type ProviderView } from './list-providers';
import { modelsInUse } from './models-in-use';

// What the Providers page shows of each provider: its entry and key status (never a key), what
// its type can serve (the capability table), the models its packages name, its last 24 hours.

export interface ProviderSummary extends ProviderView {
  label: string;
  /** The type's public default, shown where base_url is empty. */
  default_base_url: string | null;
  operations: readonly Operation[];
  /** The type's extra settings (azure resource_name, bedrock region, ...). */
  options: Record<string, string>;
  models: string[];
  health: ProviderHealth;
}

export async function providerOverview(db: PrismaClient, sqlDb: SqlDb): Promise<ProviderSummary[]> {
  const [providers, rows, models, health] = await Promise.all([
    listProviders(db),
    db.provider.findMany({ select: { name: true, options: true } }),
    modelsInUse(sqlDb),
    providerHealth(sqlDb),
  ]);
  const options = new Map(rows.map((row) => [row.name, (row.options ?? {}) as Record<string, string>]));
  return providers.map((provider) => ({
    ...provider,
    label: isProviderType(provider.type) ? PROVIDER_TYPE_INFO[provider.type].label : `unknown type "${provider.type}"`,
    default_base_url:
      isProviderType(provider.type) && !PROVIDER_TYPE_INFO[provider.type].baseUrlRequired
        ? PROVIDER_TYPE_INFO[provider.type].defaultBaseUrl
        : null,
    operations: operationsOf(provider.type),
    options: options.get(provider.name) ?? {},
    models: models.get(provider.name) ?? [],
    health: healthOf(health, provider.name),
  }));
}

export async function getProviderSummary(db: PrismaClient, sqlDb: SqlDb, name: string): Promise<ProviderSummary> {
  const found = (await providerOverview(db, sqlDb)).find((provider) => provider.name === name);
  if (!found) throw new ApiError('not_found', { message: `No provider named ${name}.` });
  return found;
}

/** For the package form: every provider with what it can serve and the models already named. */
export interface EngineChoice {
  provider: string;
  type: string;
  operations: readonly Operation[];
  models: string[];
}

export async function engineChoices(db: PrismaClient, sqlDb: SqlDb): Promise<EngineChoice[]> {
  const [providers, models] = await Promise.all([
    db.provider.findMany({ select: { name: true, type: true }, orderBy: { name: 'asc' } }),
    modelsInUse(sqlDb),
  ]);
  return providers.map((provider) => ({
    provider: provider.name,
    type: provider.type,
    operations: operationsOf(provider.type),
    models: models.get(provider.name) ?? [],
  }));
}
