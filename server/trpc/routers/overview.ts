import { z } from 'zod';
import { getSqlDb } from '../../db/client';
import { getOverview } from '../../domain/reports/overview';
import { viewerProcedure, router } from '../init';

export const overviewRouter = router({
  get: viewerProcedure
    .input(z.strictObject({ days: z.number().int().min(1).max(366).optional() }).optional())
    .query(({ ctx, input }) => getOverview(ctx.db, getSqlDb(), { days: input?.days })),
});
