import { Prisma, type PrismaClient } from '../../db/generated/client';
import { advisoryXactLock, CATALOGUE_LOCK } from '../../db/transaction-locks';
import type { Actor } from '../actor';
import { recordAudit } from '../audit/record-audit';
import { canonicalJson, sha256Hex } from '../canonical-json';
import { ApiError } from '../errors';
import { capabilitySummary, engineCapabilityIssues } from '../providers/check-engine-capabilities';
import { versionsInUse } from '../providers/versions-in-use';
import { engineNamesOf } from '../engine-names';
import { outputCapNotices } from '../../contract/output-cap-notices';
import { packagesFileSchema, providerExtrasOf, type PackageDefinition, type PackagesFile } from '../../contract/package-schema';
import { zodValidationError } from '../zod-issues';
import { canonicalDefinition } from './canonical-definition';
import { clearKeyOfMovedProvider } from '../providers/clear-moved-key';
import { refuseUnlessOwner } from '../providers/owner-only-destination';
import { refuseUnsafeProviders } from '../providers/provider-guard';
import { budgetPriceIssues, providerPricing, refuseUnpricingBudgets } from '../providers/budget-prices';
import { storedSettings } from '../providers/stored-settings';

export type ChangeStatus = 'created' | 'updated' | 'unchanged';

export interface ApplyResult {
  /** `key_cleared`: the provider moved (type or base_url) and its stored key was deleted. */
  providers: { name: string; status: ChangeStatus; key_cleared?: true }[];
  packages: { slug: string; version: number; status: ChangeStatus }[];
  /** Said, not refused: a text or code operation without an output cap (output-cap-notices.ts). */
  notices: string[];
}

/** Parses a packages file body; every problem is reported with its dotted path. */
export function parsePackagesFile(raw: unknown): PackagesFile {
  const parsed = packagesFileSchema.safeParse(raw);
  if (!parsed.success) throw zodValidationError(parsed.error, raw, 'The packages file is invalid.');
  return parsed.data;
}

export function definitionHash(definition: PackageDefinition): string {
  return sha256Hex(canonicalJson({ ...definition, slug: undefined }));
}

function referencedProviders(definition: PackageDefinition): { provider: string; path: string }[] {
  return Object.entries(definition.operations).flatMap(([operation, settings]) => {
    if (!settings) return [];
    const list = typeof settings.engine !== 'string';
    return engineNamesOf(settings.engine).flatMap((name, index) =>
      name === 'local' ? [] : [{ provider: name.split(':')[0]!, path: `operations.${operation}.engine${list ? `.${index}` : ''}` }],
    );
  });
}

export interface ApplyOptions {
  /** true: every package must exist already (404 otherwise); false: none may (422 `already_exists`). */
  expectExisting?: boolean;
  /**
   * The version a form's change started from: a package whose latest version is another (a
   * second operator's change came first) is refused, so that neither change undoes the other.
   */
  basedOnVersion?: number;
}

/**
 * Creates or updates providers and packages in one transaction; unchanged packages keep their
 * version. Applies are serialised, so two at once cannot both create a slug or both take the
 * next version number, and the existence rule of `options` is judged inside the same lock.
 */
export async function applyPackages(db: PrismaClient, actor: Actor, file: PackagesFile, options: ApplyOptions = {}): Promise<ApplyResult> {
  refuseUnsafeProviders(file.providers, (name) => `providers.${name}`);
  return db.$transaction(async (tx) => {
    // Applies (CLI, dashboard, seeding, any instance) run one at a time, never beside a provider's save.
    await advisoryXactLock(tx, CATALOGUE_LOCK);
    const result: ApplyResult = { providers: [], packages: [], notices: file.packages.flatMap(outputCapNotices) };
    let retyped = new Set<string>();
    const inFile = new Set(file.packages.map((definition) => definition.slug));
    await refuseUnpricingBudgets(tx, async () => void (retyped = await applyProviders(tx, actor, file.providers, result)), {
      skip: inFile,
    });
    const providerTypes = new Map(
      (await tx.provider.findMany({ select: { name: true, type: true } })).map((p) => [p.name, p.type] as const),
    );
    const knownProviders = new Set(providerTypes.keys());
    const missing = file.packages.flatMap((definition, index) =>
      referencedProviders(definition)
        .filter((ref) => !knownProviders.has(ref.provider))
        .map((ref) => ({
          path: `packages.${index}.${ref.path}`,
          code: 'unknown_provider',
          message: `provider "${ref.provider}" is not defined in "providers" or in the database`,
        })),
    );
    // Judged after the providers above are written, so a file may change a type and its packages together.
    const unable = file.packages.flatMap((definition, index) => engineCapabilityIssues(definition, index, providerTypes));
    unable.push(...(await storedPackagesUnable(tx, file, retyped, providerTypes)));
    // Every engine that names no provider or one that cannot do its operation, in one refusal.
    if (missing.length > 0) throw ApiError.validation([...missing, ...unable], 'The packages file is invalid.');
    if (unable.length > 0) throw ApiError.validation(unable, capabilitySummary(unable));
    const pricing = await providerPricing(tx);
    const unpriced = file.packages.flatMap((definition, index) => budgetPriceIssues(definition, index, pricing));
    if (unpriced.length > 0) throw ApiError.validation(unpriced, unpriced[0]!.message);

    for (const definition of file.packages) {
      result.packages.push(await applyPackage(tx, actor, definition, options, result.notices));
    }
    return result;
  });
}

/**
 * A provider whose type changes must still serve the packages already stored that name it (the
 * latest version of each; older ones keep their keys' terms and their engines' fate).
 */
/** Writes the file's providers (each audited), noting their statuses; returns those whose type changed. */
async function applyProviders(
  tx: Prisma.TransactionClient,
  actor: Actor,
  providers: PackagesFile['providers'],
  result: ApplyResult,
): Promise<Set<string>> {
  const retyped = new Set<string>();
  for (const [name, provider] of Object.entries(providers)) {
    const data = {
      type: provider.type,
      baseUrl: provider.base_url ?? null,
      apiKeyEnv: provider.api_key_env ?? null,
      options: providerExtrasOf(provider),
      prices: (provider.prices ?? {}) as Prisma.InputJsonValue,
    };
    const existing = await tx.provider.findUnique({ where: { name } });
    refuseUnlessOwner(actor, `providers.${name}`, existing, data);
    if (!existing) {
      await tx.provider.create({ data: { name, ...data } });
      await recordAudit(tx, actor, { action: 'provider.create', targetType: 'provider', targetId: name, after: data });
      result.providers.push({ name, status: 'created' });
    } else if (
      existing.type !== data.type ||
      existing.baseUrl !== data.baseUrl ||
      existing.apiKeyEnv !== data.apiKeyEnv ||
      canonicalJson(existing.options) !== canonicalJson(data.options) ||
      canonicalJson(existing.prices) !== canonicalJson(data.prices)
    ) {
      if (existing.type !== data.type) retyped.add(name);
      await tx.provider.update({ where: { name }, data });
      const before = storedSettings(existing);
      await recordAudit(tx, actor, { action: 'provider.update', targetType: 'provider', targetId: name, before, after: data });
      const cleared = await clearKeyOfMovedProvider(tx, actor, name, existing, data);
      result.providers.push(cleared ? { name, status: 'updated', key_cleared: true } : { name, status: 'updated' });
    } else {
      result.providers.push({ name, status: 'unchanged' });
    }
  }
  return retyped;
}

/** What a retyped provider could no longer serve in the package versions already stored that are in use. */
async function storedPackagesUnable(
  tx: Prisma.TransactionClient,
  file: PackagesFile,
  retyped: ReadonlySet<string>,
  providerTypes: ReadonlyMap<string, string>,
) {
  if (retyped.size === 0) return [];
  const inUse = await versionsInUse(tx, retyped, new Set(file.packages.map((definition) => definition.slug)));
  return inUse.flatMap(({ slug, version, operations }) =>
    engineCapabilityIssues({ operations } as PackageDefinition, 0, providerTypes).map((issue) => ({
      ...issue,
      path: issue.path.replace(/^packages\.0\./, `package "${slug}" version ${version} `),
    })),
  );
}

async function applyPackage(
  tx: Prisma.TransactionClient,
  actor: Actor,
  written: PackageDefinition,
  options: ApplyOptions,
  notices: string[],
): Promise<ApplyResult['packages'][number]> {
  const definition = canonicalDefinition(written);
  const hash = definitionHash(definition);
  const existing = await tx.package.findUnique({
    where: { slug: definition.slug },
    include: { versions: { orderBy: { version: 'desc' }, take: 1 } },
  });
  if (options.expectExisting === true && !existing) {
    throw new ApiError('not_found', { message: `No package "${definition.slug}".` });
  }
  if (options.expectExisting === false && existing) {
    throw ApiError.validation([{ path: 'slug', code: 'already_exists', message: `a package with slug "${definition.slug}" exists` }]);
  }
  if (existing && options.basedOnVersion !== undefined && existing.latestVersion !== options.basedOnVersion) {
    const message = `Version ${existing.latestVersion} of "${definition.slug}" was created after version ${options.basedOnVersion}, which this change started from: start again from version ${existing.latestVersion}, so that neither change undoes the other.`;
    throw ApiError.validation([{ path: 'slug', code: 'version_changed', message }], message);
  }
  if (existing?.archivedAt) {
    notices.push(
      `package ${definition.slug} is archived: no key can be issued on it (packages unarchive ${definition.slug} offers it again)`,
    );
  }
  const latest = existing?.versions[0];
  if (existing && latest && latest.definitionHash === hash) {
    return { slug: definition.slug, version: latest.version, status: 'unchanged' };
  }
  const version = (existing?.latestVersion ?? 0) + 1;
  const pkg = existing
    ? await tx.package.update({ where: { id: existing.id }, data: { name: definition.name, latestVersion: version } })
    : await tx.package.create({ data: { slug: definition.slug, name: definition.name, latestVersion: version } });
  await tx.packageVersion.create({ data: versionRow(pkg.id, version, definition, hash) });
  await recordAudit(tx, actor, {
    action: existing ? 'package.version.create' : 'package.create',
    targetType: 'package',
    targetId: definition.slug,
    before: latest ? { version: latest.version } : undefined,
    after: { version, definition },
  });
  return { slug: definition.slug, version, status: existing ? 'updated' : 'created' };
}

/** A new version's row: the definition's terms, in their columns. */
function versionRow(
  packageId: string,
  version: number,
  definition: PackageDefinition,
  hash: string,
): Prisma.PackageVersionUncheckedCreateInput {
  return {
    packageId,
    version,
    name: definition.name,
    definitionHash: hash,
    quotaUnits: definition.quota_units,
    requestsPerMinute: definition.limits.requests_per_minute,
    concurrency: definition.limits.concurrency,
    maxUploadBytes: definition.limits.max_upload_bytes,
    unitPrice: definition.unit_price ?? null,
    maxProviderCostPerDay: definition.limits.max_provider_cost_per_day ?? null,
    maxStoredBytes: definition.limits.max_stored_bytes ?? null,
    operations: definition.operations as Prisma.InputJsonValue,
    sale: definition.sale ? (definition.sale as Prisma.InputJsonValue) : Prisma.DbNull,
    openaiRequireIdempotencyKey: definition.openai_compatible?.require_idempotency_key ?? false,
  };
}
