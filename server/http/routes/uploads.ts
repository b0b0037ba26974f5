import { getPrisma } from '../../db/client';
import { completeUploadRequest, createUploadRequest } from '../../contract/jobs-and-uploads';
import { completeUpload, findCompletableUpload } from '../../domain/uploads/complete-upload';
import { canCreateUploads, checkCreateUpload, createUpload } from '../../domain/uploads/create-upload';
import { definePostRoute } from '../pipeline';

export const createUploadRoute = definePostRoute({
  scope: canCreateUploads,
  schema: createUploadRequest,
  prepare: (body, ctx) => checkCreateUpload(ctx.key, body),
  run: async (body, ctx) => ({ kind: 'resource', status: 201, body: await createUpload(getPrisma(), ctx.key, body, ctx.origin) }),
});

export const completeUploadRoute = definePostRoute({
  scope: canCreateUploads, // another key's upload is 404, checked in prepare
  schema: completeUploadRequest,
  prepare: async (body, ctx) => ({ upload: await findCompletableUpload(getPrisma(), ctx.key, ctx.params.uploadId ?? ''), sha256: body.sha256 }),
  run: async ({ upload, sha256 }) => ({ kind: 'resource', status: 200, body: await completeUpload(getPrisma(), upload, sha256) }),
});
