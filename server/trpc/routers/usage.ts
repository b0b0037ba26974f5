import { usageFilters, usageRange } from '../../contract/dashboard/usage-filters';
import { listUsageEvents } from '../../domain/reports/usage-events';
import { operatorProcedure, router } from '../init';
import { page } from './inputs';

export const usageRouter = router({
  list: operatorProcedure
    .input(usageFilters.extend(page))
    .query(({ ctx, input }) => listUsageEvents(ctx.db, { ...input, ...usageRange(input) })),
});
