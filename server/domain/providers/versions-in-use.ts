import type { Prisma } from '../../db/generated/client';
import type { PackageDefinition } from '../../contract/package-schema';
import { engineNamesOf } from '../engine-names';

// The package versions a provider must keep serving when its type changes (the packages file's
// retype, the dashboard's edit): each package's latest, which new keys are issued and sold on,
// and every older version a key that is not revoked is still locked to (it keeps its terms).

export interface VersionInUse {
  slug: string;
  version: number;
  operations: PackageDefinition['operations'];
}

/**
 * The versions in use that sell through one of `providers` (an engine `PROVIDER:MODEL` of theirs).
 * `replaced`: packages whose latest a packages file is about to supersede (its own new versions are judged as such).
 */
export async function versionsInUse(
  tx: Prisma.TransactionClient,
  providers: ReadonlySet<string>,
  replaced: ReadonlySet<string> = new Set(),
): Promise<VersionInUse[]> {
  const packages = await tx.package.findMany({
    orderBy: { slug: 'asc' },
    include: {
      versions: { orderBy: { version: 'asc' }, include: { _count: { select: { apiKeys: { where: { status: { not: 'revoked' } } } } } } },
    },
  });
  return packages
    .flatMap((pkg) =>
      pkg.versions
        .filter((version) => version._count.apiKeys > 0 || (version.version === pkg.latestVersion && !replaced.has(pkg.slug)))
        .map((version) => ({
          slug: pkg.slug,
          version: version.version,
          operations: version.operations as PackageDefinition['operations'],
        })),
    )
    .filter(({ operations }) => sellsThrough(operations, providers));
}

function sellsThrough(operations: PackageDefinition['operations'], providers: ReadonlySet<string>): boolean {
  const engines = Object.values(operations).flatMap((settings) => (settings ? engineNamesOf(settings.engine) : []));
  return engines.some((engine) => providers.has(engine.split(':')[0]!));
}
