import { z } from 'zod';
import { callsUsingUpload, uploadFileLink } from '../../domain/reports/media-links';
import { getUpload, listUploads, UPLOAD_STATUSES } from '../../domain/reports/uploads';
import { viewerProcedure, router } from '../init';
import { cursor, limit, uuid } from './inputs';

const uploadId = z.string().min(1).max(200);

export const uploadsRouter = router({
  list: viewerProcedure
    .input(z.strictObject({ status: z.enum(UPLOAD_STATUSES).optional(), apiKeyId: uuid.optional(), cursor, limit }))
    .query(({ ctx, input }) => listUploads(ctx.db, input)),
  get: viewerProcedure.input(z.strictObject({ id: uploadId })).query(({ ctx, input }) => getUpload(ctx.db, input.id)),
  /** A fresh short-lived URL of the verified bytes, for preview and download (null before verification). */
  fileLink: viewerProcedure.input(z.strictObject({ id: uploadId })).query(({ ctx, input }) => uploadFileLink(ctx.db, input.id)),
  /** The /v1 calls that consumed this upload (their usage events), and video jobs on it still running. */
  usedBy: viewerProcedure.input(z.strictObject({ id: uploadId })).query(({ ctx, input }) => callsUsingUpload(ctx.db, input.id)),
});
