import { z } from 'zod';
import { getConfig } from '../../config';
import { getSqlDb } from '../../db/client';
import { usageDay as day } from '../../contract/dashboard/usage-filters';
import { budgetPackagesWithoutPrice } from '../../domain/providers/budget-prices';
import { marginByKey, marginByPackage, marginReport } from '../../domain/reports/margin';
import { RANGE_PRESETS } from '../../contract/dashboard/time-range';
import { resolveTimeRange } from '../../domain/reports/time-range';
import { viewerProcedure, router } from '../init';
import { limit, uuid } from './inputs';

// Revenue, provider cost and margin over a time range (docs/billing.md "Provider cost, revenue
// and margin"): of everything, a package or a key; packages and keys sorted by margin; and the
// packages whose budget cannot count an engine (no known price), for the overview's warning.

const range = {
  range: z.enum([...RANGE_PRESETS, 'custom']).optional(),
  from: day.optional(),
  to: day.optional(),
};
const sort = z.enum(['margin_asc', 'margin_desc']).optional();
const slug = z.string().min(1).max(63);

export const marginRouter = router({
  report: viewerProcedure
    .input(z.strictObject({ ...range, package: slug.optional(), key: uuid.optional() }).optional())
    .query(async ({ input }) => {
      const timeRange = resolveTimeRange(input);
      const report = await marginReport(getSqlDb(), { range: timeRange, packageSlug: input?.package, apiKeyId: input?.key });
      return { currency: getConfig().CURRENCY, range: { label: timeRange.label, bucket: timeRange.bucket }, ...report };
    }),
  packages: viewerProcedure
    .input(z.strictObject({ ...range, sort, limit }).optional())
    .query(async ({ input }) =>
      (await marginByPackage(getSqlDb(), { range: resolveTimeRange(input) }, input?.sort)).slice(0, input?.limit ?? 50),
    ),
  unpricedBudgets: viewerProcedure.query(({ ctx }) => budgetPackagesWithoutPrice(ctx.db)),
  keys: viewerProcedure
    .input(z.strictObject({ ...range, sort, limit }).optional())
    .query(async ({ input }) =>
      (await marginByKey(getSqlDb(), { range: resolveTimeRange(input) }, input?.sort)).slice(0, input?.limit ?? 50),
    ),
});
