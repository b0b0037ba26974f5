import { getSqlDb } from '../../db/client';
import { inDayOrder, usageFilters, usageRange } from '../../contract/dashboard/usage-filters';
import { listUsageEvents, usageCsvLines, usageTotals } from '../../domain/reports/usage-events';
import { viewerProcedure, router } from '../init';
import { inExportSlot } from '../export-slots';
import { page } from './inputs';

export const usageRouter = router({
  list: viewerProcedure
    .input(inDayOrder(usageFilters.extend(page)))
    .query(({ ctx, input }) => listUsageEvents(ctx.db, { ...input, ...usageRange(input) })),
  /** Totals of everything the filters select, for the table's totals row. */
  totals: viewerProcedure
    .input(inDayOrder(usageFilters))
    .query(({ ctx, input }) => usageTotals(ctx.db, { ...input, ...usageRange(input) })),
  /** The same events as CSV lines (header first), read page by page: the export streams them as they come. */
  csv: viewerProcedure
    .input(inDayOrder(usageFilters))
    .query(({ ctx, input }) => inExportSlot(() => usageCsvLines(ctx.db, getSqlDb(), { ...input, ...usageRange(input) }))),
});
