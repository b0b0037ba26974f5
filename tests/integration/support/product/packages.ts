import { getPrisma } from '@/server/db/client';
import { CLI_ACTOR } from '@/server/domain/actor';
import { applyPackages, parsePackagesFile } from '@/server/domain/packages/apply-packages';

/** Applies a packages file of one package `slug` that sells `operations` (60 requests a minute, one at a time). */
export async function applyOnePackage(slug: string, operations: Record<string, unknown>, quota = 10): Promise<void> {
  await applyPackages(
    getPrisma(),
    CLI_ACTOR,
    parsePackagesFile({
      packages: [{ slug, name: slug, quota_units: quota, limits: { requests_per_minute: 60, concurrency: 1 }, operations }],
    }),
  );
}
