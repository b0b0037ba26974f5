import { z } from 'zod';
import { getUpload, listUploads, UPLOAD_STATUSES } from '../../domain/reports/uploads';
import { operatorProcedure, router } from '../init';
import { cursor, limit, uuid } from './inputs';

export const uploadsRouter = router({
  list: operatorProcedure
    .input(z.strictObject({ status: z.enum(UPLOAD_STATUSES).optional(), apiKeyId: uuid.optional(), cursor, limit }))
    .query(({ ctx, input }) => listUploads(ctx.db, input)),
  get: operatorProcedure.input(z.strictObject({ id: z.string().min(1).max(200) })).query(({ ctx, input }) => getUpload(ctx.db, input.id)),
});
