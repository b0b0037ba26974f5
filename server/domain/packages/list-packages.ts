import type { PackageVersion, PrismaClient } from '../../db/generated/client';
import { ApiError } from '../errors';
import type { PackageDefinition, PackageOperations } from '../../contract/package-schema';
import type { Sale } from '../../contract/sale-schema';

export function toVersionView(version: PackageVersion, keyCount = 0) {
  return {
    id: version.id,
    version: version.version,
    name: version.name,
    quota_units: version.quotaUnits,
    limits: {
      requests_per_minute: version.requestsPerMinute,
      concurrency: version.concurrency,
      max_upload_bytes: version.maxUploadBytes,
      ...(version.maxProviderCostPerDay !== null ? { max_provider_cost_per_day: version.maxProviderCostPerDay.toNumber() } : {}),
      ...(version.maxStoredBytes === null ? {} : { max_stored_bytes: Number(version.maxStoredBytes) }),
    },
    ...(version.unitPrice !== null ? { unit_price: version.unitPrice.toNumber() } : {}),
    operations: version.operations as PackageOperations,
    ...(version.sale !== null ? { sale: version.sale as Sale } : {}),
    ...(version.openaiRequireIdempotencyKey ? { openai_compatible: { require_idempotency_key: true } } : {}),
    created_at: version.createdAt.toISOString(),
    key_count: keyCount,
  };
}

export type PackageVersionView = ReturnType<typeof toVersionView>;

export async function listPackages(db: PrismaClient) {
  const packages = await db.package.findMany({
    orderBy: { slug: 'asc' },
    include: { versions: { orderBy: { version: 'desc' }, take: 1 } },
  });
  return packages.map((pkg) => {
    const latest = pkg.versions[0];
    return {
      slug: pkg.slug,
      name: pkg.name,
      latest_version: pkg.latestVersion,
      archived_at: pkg.archivedAt?.toISOString() ?? null,
      quota_units: latest?.quotaUnits ?? 0,
      operations: latest ? Object.keys(latest.operations as object) : [],
      updated_at: pkg.updatedAt.toISOString(),
    };
  });
}

/** Every version's quota, by package slug and version number (one query: the issue-key form's hint). */
export async function versionQuotas(db: PrismaClient): Promise<Record<string, Record<number, number>>> {
  const versions = await db.packageVersion.findMany({ select: { version: true, quotaUnits: true, package: { select: { slug: true } } } });
  const quotas: Record<string, Record<number, number>> = {};
  for (const { version, quotaUnits, package: pkg } of versions) (quotas[pkg.slug] ??= {})[version] = quotaUnits;
  return quotas;
}

/** A package with every version, newest first, and how many keys each version has sold. */
export async function getPackage(db: PrismaClient, slug: string) {
  const pkg = await db.package.findUnique({
    where: { slug },
    include: { versions: { orderBy: { version: 'desc' }, include: { _count: { select: { apiKeys: true } } } } },
  });
  if (!pkg) throw new ApiError('not_found', { message: `No package "${slug}".` });
  return {
    slug: pkg.slug,
    name: pkg.name,
    latest_version: pkg.latestVersion,
    archived_at: pkg.archivedAt?.toISOString() ?? null,
    created_at: pkg.createdAt.toISOString(),
    updated_at: pkg.updatedAt.toISOString(),
    versions: pkg.versions.map((version) => toVersionView(version, version._count.apiKeys)),
  };
}

/** A stored version as a package-file definition: the starting point of the "new version" form. */
export function versionToDefinition(slug: string, version: PackageVersionView): PackageDefinition {
  return {
    slug,
    name: version.name,
    quota_units: version.quota_units,
    limits: version.limits,
    operations: version.operations,
    ...(version.unit_price !== undefined ? { unit_price: version.unit_price } : {}),
    ...(version.sale !== undefined ? { sale: version.sale } : {}),
    ...(version.openai_compatible !== undefined ? { openai_compatible: version.openai_compatible } : {}),
  };
}
