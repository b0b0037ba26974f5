import type { Prisma } from '../../db/generated/client';
import type { PackageDefinition } from '../../contract/package-schema';

// The package versions a provider must keep serving when its type changes (the packages file's
// retype, the dashboard's edit): each package's latest, which new keys are issued and sold on,
// and every older version a key that is not revoked is still locked to (it keeps its terms).

export interface VersionInUse {
  slug: string;
  version: number;
  operations: PackageDefinition['operations'];
}

/** `replaced`: packages whose latest a packages file is about to supersede (its own new versions are judged as such). */
export async function versionsInUse(tx: Prisma.TransactionClient, replaced: ReadonlySet<string> = new Set()): Promise<VersionInUse[]> {
  const packages = await tx.package.findMany({
    orderBy: { slug: 'asc' },
    include: {
      versions: { orderBy: { version: 'asc' }, include: { _count: { select: { apiKeys: { where: { status: { not: 'revoked' } } } } } } },
    },
  });
  return packages.flatMap((pkg) =>
    pkg.versions
      .filter((version) => version._count.apiKeys > 0 || (version.version === pkg.latestVersion && !replaced.has(pkg.slug)))
      .map((version) => ({ slug: pkg.slug, version: version.version, operations: version.operations as PackageDefinition['operations'] })),
  );
}
