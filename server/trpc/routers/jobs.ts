import { z } from 'zod';
import { getJob, JOB_STATUSES, listJobs } from '../../domain/reports/jobs';
import { operatorProcedure, router } from '../init';
import { cursor, limit, uuid } from './inputs';

export const jobsRouter = router({
  list: operatorProcedure
    .input(z.strictObject({ status: z.enum(JOB_STATUSES).optional(), apiKeyId: uuid.optional(), cursor, limit }))
    .query(({ ctx, input }) => listJobs(ctx.db, input)),
  get: operatorProcedure.input(z.strictObject({ id: z.string().min(1).max(200) })).query(({ ctx, input }) => getJob(ctx.db, input.id)),
});
