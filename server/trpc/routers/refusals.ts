import { z } from 'zod';
import { getSqlDb } from '../../db/client';
import { getKey } from '../../domain/keys/manage-keys';
import { listKeysByRefusals } from '../../domain/reports/key-refusals';
import { RANGE_PRESETS } from '../../contract/dashboard/time-range';
import { resolveTimeRange } from '../../domain/reports/time-range';
import { getTrafficOverview, refusedByCode } from '../../domain/reports/traffic';
import { viewerProcedure, router } from '../init';
import { usageDay as day } from '../../contract/dashboard/usage-filters';
import { limit, uuid } from './inputs';

// Succeeded, failed and refused traffic over a time range: the overview, a key's refusals by
// code, and the keys with the most refusals.

const range = {
  range: z.enum([...RANGE_PRESETS, 'custom']).optional(),
  from: day.optional(),
  to: day.optional(),
};

export const refusalsRouter = router({
  overview: viewerProcedure
    .input(z.strictObject(range).optional())
    .query(({ ctx, input }) => getTrafficOverview(ctx.db, getSqlDb(), resolveTimeRange(input))),
  byKey: viewerProcedure.input(z.strictObject({ id: uuid, ...range })).query(async ({ ctx, input }) => {
    const key = await getKey(ctx.db, input.id);
    const timeRange = resolveTimeRange(input);
    const byCode = await refusedByCode(getSqlDb(), timeRange, key.id);
    return { label: timeRange.label, total: byCode.reduce((sum, row) => sum + row.count, 0), by_code: byCode };
  }),
  keys: viewerProcedure
    .input(z.strictObject({ ...range, limit }).optional())
    .query(({ ctx, input }) => listKeysByRefusals(ctx.db, getSqlDb(), resolveTimeRange(input), input?.limit)),
});
