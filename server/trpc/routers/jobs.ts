import { z } from 'zod';
import { inDayOrder, usageDay, usageRange } from '../../contract/dashboard/usage-filters';
import { getJob, JOB_STATUSES, listJobs } from '../../domain/reports/jobs';
import { jobResultLink } from '../../domain/reports/media-links';
import { viewerProcedure, router } from '../init';
import { cursor, limit, operation, uuid } from './inputs';

const jobId = z.string().min(1).max(200);

export const jobsRouter = router({
  list: viewerProcedure
    .input(
      inDayOrder(
        z.strictObject({
          status: z.enum(JOB_STATUSES).optional(),
          apiKeyId: uuid.optional(),
          key: z.string().trim().min(1).max(200).optional(),
          operation: operation.optional(),
          from: usageDay.optional(),
          to: usageDay.optional(),
          cursor,
          limit,
        }),
      ),
    )
    .query(({ ctx, input }) => listJobs(ctx.db, { ...input, ...usageRange(input) })),
  get: viewerProcedure.input(z.strictObject({ id: jobId })).query(({ ctx, input }) => getJob(ctx.db, input.id)),
  /** A fresh short-lived URL of the job's video (null until it has one). */
  resultLink: viewerProcedure.input(z.strictObject({ id: jobId })).query(({ ctx, input }) => jobResultLink(ctx.db, input.id)),
});
