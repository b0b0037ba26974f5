import { z } from 'zod';
import { setPackageArchived } from '../../domain/packages/archive-package';
import { createPackageVersion } from '../../domain/packages/create-package-version';
import { getPackage, listPackages, versionQuotas } from '../../domain/packages/list-packages';
import { diffVersions } from '../../domain/packages/version-diff';
import { ApiError } from '../../domain/errors';
import { PG_INTEGER_MAX } from '../../contract/pg-integer';
import { adminProcedure, viewerProcedure, router } from '../init';

const slug = z.string().min(1).max(63);
const versionNumber = z.number().int().min(1).max(PG_INTEGER_MAX);

export const packagesRouter = router({
  list: viewerProcedure.query(({ ctx }) => listPackages(ctx.db)),
  versionQuotas: viewerProcedure.query(({ ctx }) => versionQuotas(ctx.db)),
  get: viewerProcedure.input(z.strictObject({ slug })).query(({ ctx, input }) => getPackage(ctx.db, input.slug)),
  /** The definition is checked by the packages-file schema inside the domain, field by field. */
  createVersion: adminProcedure
    .input(
      z.strictObject({
        definition: z.record(z.string(), z.unknown()),
        mode: z.enum(['new-package', 'new-version']),
        /** The version the form started from: refused when another is the latest now. */
        basedOnVersion: versionNumber.optional(),
      }),
    )
    .mutation(({ ctx, input }) =>
      createPackageVersion(ctx.db, ctx.actor, {
        definition: input.definition,
        expectExisting: input.mode === 'new-version',
        basedOnVersion: input.basedOnVersion,
      }),
    ),
  /** What changed from one version to another, field by field. */
  diff: viewerProcedure.input(z.strictObject({ slug, from: versionNumber, to: versionNumber })).query(async ({ ctx, input }) => {
    const pkg = await getPackage(ctx.db, input.slug);
    const find = (version: number) => {
      const found = pkg.versions.find((item) => item.version === version);
      if (!found) throw new ApiError('not_found', { message: `Package "${pkg.slug}" has no version ${version}.` });
      return found;
    };
    return { slug: pkg.slug, from: input.from, to: input.to, changes: diffVersions(find(input.from), find(input.to)) };
  }),
  /** Archived: no new keys; the keys already issued keep working. */
  setArchived: adminProcedure
    .input(z.strictObject({ slug, archived: z.boolean() }))
    .mutation(({ ctx, input }) => setPackageArchived(ctx.db, ctx.actor, input.slug, input.archived)),
});
