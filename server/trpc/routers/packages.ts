import { z } from 'zod';
import { createPackageVersion } from '../../domain/packages/create-package-version';
import { getPackage, listPackages } from '../../domain/packages/list-packages';
import { operatorProcedure, router } from '../init';

const slug = z.string().min(1).max(63);

export const packagesRouter = router({
  list: operatorProcedure.query(({ ctx }) => listPackages(ctx.db)),
  get: operatorProcedure.input(z.strictObject({ slug })).query(({ ctx, input }) => getPackage(ctx.db, input.slug)),
  /** The definition is checked by the packages-file schema inside the domain, field by field. */
  createVersion: operatorProcedure
    .input(z.strictObject({ definition: z.record(z.string(), z.unknown()), mode: z.enum(['new-package', 'new-version']) }))
    .mutation(({ ctx, input }) =>
      createPackageVersion(ctx.db, ctx.actor, { definition: input.definition, expectExisting: input.mode === 'new-version' }),
    ),
});
