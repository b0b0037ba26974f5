import { z } from 'zod';
import { isAuditCursor, listAudit, listAuditActions } from '../../domain/audit/list-audit';
import { getJob, JOB_STATUSES, listJobs } from '../../domain/reports/jobs';
import { getOverview } from '../../domain/reports/overview';
import { getUpload, listUploads, UPLOAD_STATUSES } from '../../domain/reports/uploads';
import { listUsageEvents } from '../../domain/reports/usage-events';
import { operatorProcedure, router } from '../init';
import { cursor, day, limit, operation, page, uuid } from './inputs';

// Read-only views of what the API did: overview charts, usage events, jobs, uploads, audit.

export const usageFilters = z.strictObject({
  apiKeyId: uuid.optional(),
  operation: operation.optional(),
  outcome: z.enum(['succeeded', 'failed']).optional(),
  from: day.optional(),
  to: day.optional(),
});

/** Dates are whole UTC days; `to` includes its day. */
export function usageRange(input: { from?: string; to?: string }) {
  return {
    from: input.from ? new Date(`${input.from}T00:00:00.000Z`) : undefined,
    to: input.to ? new Date(new Date(`${input.to}T00:00:00.000Z`).getTime() + 86_400_000) : undefined,
  };
}

export const overviewRouter = router({
  get: operatorProcedure
    .input(z.strictObject({ days: z.number().int().min(1).max(366).optional() }).optional())
    .query(({ ctx, input }) => getOverview(ctx.db, { days: input?.days })),
});

export const usageRouter = router({
  list: operatorProcedure
    .input(usageFilters.extend(page))
    .query(({ ctx, input }) => listUsageEvents(ctx.db, { ...input, ...usageRange(input) })),
});

export const jobsRouter = router({
  list: operatorProcedure
    .input(z.strictObject({ status: z.enum(JOB_STATUSES).optional(), apiKeyId: uuid.optional(), cursor, limit }))
    .query(({ ctx, input }) => listJobs(ctx.db, input)),
  get: operatorProcedure.input(z.strictObject({ id: z.string().min(1).max(200) })).query(({ ctx, input }) => getJob(ctx.db, input.id)),
});

export const uploadsRouter = router({
  list: operatorProcedure
    .input(z.strictObject({ status: z.enum(UPLOAD_STATUSES).optional(), apiKeyId: uuid.optional(), cursor, limit }))
    .query(({ ctx, input }) => listUploads(ctx.db, input)),
  get: operatorProcedure.input(z.strictObject({ id: z.string().min(1).max(200) })).query(({ ctx, input }) => getUpload(ctx.db, input.id)),
});

export const auditRouter = router({
  list: operatorProcedure
    .input(
      z.strictObject({
        action: z.string().max(100).optional(),
        actor: z.string().max(320).optional(),
        targetType: z.string().max(100).optional(),
        targetId: z.string().max(200).optional(),
        cursor: z.string().refine(isAuditCursor, 'not a cursor this service returned').optional(),
        limit,
      }),
    )
    .query(({ ctx, input }) => listAudit(ctx.db, input)),
  actions: operatorProcedure.query(({ ctx }) => listAuditActions(ctx.db)),
});
