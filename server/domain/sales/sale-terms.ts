import type { PrismaClient } from '../../db/generated/client';
import type { PackageOperations } from '../../contract/package-schema';
import { saleSchema, type Sale } from '../../contract/sale-schema';
import { toMinorUnits } from '../../contract/stripe-currency';
import type { CatalogueEntry } from '../../contract/sales-pages';

// What a package version sells for (its `sale` in the packages file) and the public catalogue:
// the latest version of every package that is not archived and carries a sale.

/** The sale terms stored with a version, or null when the version is not for sale. */
export function saleOf(stored: unknown): Sale | null {
  if (stored === null || stored === undefined) return null;
  const parsed = saleSchema.safeParse(stored);
  return parsed.success ? parsed.data : null;
}

export async function listCatalogue(db: PrismaClient): Promise<CatalogueEntry[]> {
  const packages = await db.package.findMany({
    where: { archivedAt: null },
    orderBy: { slug: 'asc' },
    include: { versions: { orderBy: { version: 'desc' }, take: 1 } },
  });
  return packages.flatMap((pkg) => {
    const version = pkg.versions[0];
    const sale = version ? saleOf(version.sale) : null;
    if (!version || !sale) return [];
    const operations = Object.entries(version.operations as PackageOperations).flatMap(([name, settings]) =>
      settings ? [{ name, units: settings.units }] : [],
    );
    return [
      {
        packageVersionId: version.id,
        slug: pkg.slug,
        name: version.name,
        version: version.version,
        quotaUnits: version.quotaUnits,
        limits: { requestsPerMinute: version.requestsPerMinute, concurrency: version.concurrency, maxUploadBytes: version.maxUploadBytes },
        operations,
        price: { amount: sale.price, minor: toMinorUnits(sale.price, sale.currency), currency: sale.currency },
        topUps: sale.top_ups.map((pack) => ({ units: pack.units, amount: pack.price, minor: toMinorUnits(pack.price, sale.currency) })),
      },
    ];
  });
}
