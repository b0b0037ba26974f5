import type { PrismaClient } from '../../db/generated/client';
import type { ModelPrices } from '../../providers/engine';
import { tableKnowsTokens } from '../billing/provider-cost';
import { ApiError, type ValidationIssue } from '../errors';
import { engineNamesOf } from './engine-names';
import type { PackageOperations } from '../../contract/package-schema';

// A provider-cost budget (limits.max_provider_cost_per_day) can only count what it can price. What
// a call used is always known or estimated (the provider's figures, else tokens from the text and
// seconds from the media: docs/billing.md), but without a price for it an engine's cost can be
// neither known nor estimated: its calls would add nothing to the day's cost, and the budget would
// silently fail open for them. A package with a budget must name only engines with a price for
// what their operation is billed by: the operator's (providers.<name>.prices), or the genai-prices
// table for tokens. Judged when a package is saved (the packages file, the dashboard's form) and
// when a provider's prices change under a stored budget; older stored ones are listed on the overview.

/** The operator's price an operation's calls need, by what its providers report. */
const NEEDED_PRICE: Record<string, keyof ModelPrices> = {
  'text.generate': 'output_per_mtok',
  'code.generate': 'output_per_mtok',
  'images.generate': 'per_image',
  'audio.speech': 'per_character',
  'audio.transcribe': 'per_second',
  'videos.generate': 'per_second',
};
const TOKEN_OPERATIONS = new Set(['text.generate', 'code.generate']);

export interface ProviderPricing {
  type: string;
  prices: Record<string, ModelPrices> | null;
}

export interface UnpricedEngine {
  operation: string;
  engine: string;
  /** e.g. providers.fal.prices["luma-dream-machine"].per_second */
  missing: string;
}

function missingPrice(operation: string, engine: string, providers: ReadonlyMap<string, ProviderPricing>): string | undefined {
  if (engine === 'local') return undefined;
  const name = engine.slice(0, engine.indexOf(':'));
  const model = engine.slice(name.length + 1);
  const provider = providers.get(name);
  if (!provider) return undefined; // an unknown provider is reported by its own check
  const needed = NEEDED_PRICE[operation] ?? 'per_second';
  const override = provider.prices?.[model];
  if (override)
    return override[needed] === undefined && !(TOKEN_OPERATIONS.has(operation) && override.input_per_mtok !== undefined)
      ? needed
      : undefined;
  if (TOKEN_OPERATIONS.has(operation) && tableKnowsTokens(provider.type, model)) return undefined;
  return needed;
}

/** The engines of a package's operations that have no known price, with the price that would give them one. */
export function unpricedEngines(operations: PackageOperations, providers: ReadonlyMap<string, ProviderPricing>): UnpricedEngine[] {
  return Object.entries(operations).flatMap(([operation, settings]) =>
    settings
      ? engineNamesOf((settings as { engine: string | readonly string[] }).engine).flatMap((engine) => {
          const price = missingPrice(operation, engine, providers);
          if (!price) return [];
          const name = engine.slice(0, engine.indexOf(':'));
          return [{ operation, engine, missing: `providers.${name}.prices[${JSON.stringify(engine.slice(name.length + 1))}].${price}` }];
        })
      : [],
  );
}

/** One issue per unpriced engine of a package saved with a budget (`index`: its place in the file). */
export function budgetPriceIssues(
  definition: { limits: { max_provider_cost_per_day?: number }; operations: PackageOperations },
  index: number,
  providers: ReadonlyMap<string, ProviderPricing>,
): ValidationIssue[] {
  if (definition.limits.max_provider_cost_per_day === undefined) return [];
  return unpricedEngines(definition.operations, providers).map((unpriced) => ({
    path: `packages.${index}.limits.max_provider_cost_per_day`,
    code: 'unpriced_engine',
    message: `max_provider_cost_per_day needs a price for every engine: ${unpriced.engine} (${unpriced.operation}) has none, so its cost can be neither known nor estimated; set ${unpriced.missing}`,
  }));
}

type BudgetDb = Pick<PrismaClient, 'package' | 'provider'>;

/**
 * Makes `change` (a write of providers' prices, in the caller's transaction), then refuses it when
 * it left an engine of a stored package with a budget without a known price (that had one before).
 * `skip`: packages the caller judges itself (those of the file being applied); `path`: the issues'
 * field (else the packages file's `providers.<name>.prices`).
 */
export async function refuseUnpricingBudgets(
  db: BudgetDb,
  change: () => Promise<void>,
  options: { skip?: ReadonlySet<string>; path?: string } = {},
): Promise<void> {
  const { skip = new Set<string>(), path } = options;
  const key = (slug: string, engine: UnpricedEngine) => `${slug} ${engine.operation} ${engine.engine}`;
  const before = new Set((await budgetPackagesWithoutPrice(db)).flatMap((pkg) => pkg.unpriced.map((engine) => key(pkg.slug, engine))));
  await change();
  const broken = (await budgetPackagesWithoutPrice(db))
    .filter((pkg) => !skip.has(pkg.slug))
    .flatMap((pkg) => pkg.unpriced.filter((engine) => !before.has(key(pkg.slug, engine))).map((engine) => ({ slug: pkg.slug, engine })));
  if (broken.length === 0) return;
  const issues = broken.map(({ slug, engine }) => ({
    path: path ?? engine.missing.slice(0, engine.missing.indexOf('[')),
    code: 'unpriced_engine',
    message: `package "${slug}" has max_provider_cost_per_day and sells ${engine.engine} (${engine.operation}): without ${engine.missing} its cost can be neither known nor estimated`,
  }));
  throw ApiError.validation(issues, issues[0]!.message);
}

/** Every provider's type and prices, by name. */
export async function providerPricing(db: Pick<PrismaClient, 'provider'>): Promise<Map<string, ProviderPricing>> {
  const rows = await db.provider.findMany({ select: { name: true, type: true, prices: true } });
  return new Map(rows.map((row) => [row.name, { type: row.type, prices: row.prices as Record<string, ModelPrices> | null }] as const));
}

/** The latest versions of live packages with a budget and an engine without a known price (the overview's warning). */
export async function budgetPackagesWithoutPrice(db: BudgetDb): Promise<{ slug: string; unpriced: UnpricedEngine[] }[]> {
  const [packages, providers] = await Promise.all([
    db.package.findMany({
      where: { archivedAt: null },
      orderBy: { slug: 'asc' },
      include: { versions: { orderBy: { version: 'desc' }, take: 1, where: { maxProviderCostPerDay: { not: null } } } },
    }),
    providerPricing(db),
  ]);
  return packages.flatMap((pkg) => {
    const latest = pkg.versions[0];
    if (!latest || latest.version !== pkg.latestVersion) return [];
    const unpriced = unpricedEngines(latest.operations as PackageOperations, providers);
    return unpriced.length > 0 ? [{ slug: pkg.slug, unpriced }] : [];
  });
}
