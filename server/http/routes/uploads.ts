import { getPrisma } from '../../db/client';
import { z } from 'zod';
import { uploadId } from '../../contract/fields';
import { completeUploadRequest, createdUploadSchema, createUploadRequest, uploadSchema } from '../../contract/jobs-and-uploads';
import { completeUpload, findCompletableUpload } from '../../domain/uploads/complete-upload';
import { canCreateUploads, checkCreateUpload, createUpload } from '../../domain/uploads/create-upload';
import { definePostRoute } from '../pipeline';

export const createUploadRoute = definePostRoute({
  path: '/v1/uploads',
  operationId: 'createUpload',
  summary: 'Create a direct private upload',
  response: {
    status: 201,
    schema: createdUploadSchema,
    description:
      'The upload, with `upload_url`, `upload_method` and `upload_headers` for sending the bytes directly (without the API key).',
  },
  // What the key holds in storage is judged with its units, after the rate step (docs/api.md).
  countedErrors: [413],
  scope: canCreateUploads,
  operation: 'uploads.create',
  schema: createUploadRequest,
  prepare: (body, ctx) => checkCreateUpload(ctx.key, body),
  run: async (body, ctx) => ({ kind: 'resource', status: 201, body: await createUpload(getPrisma(), ctx.key, body, ctx.origin) }),
});

export const completeUploadRoute = definePostRoute({
  path: '/v1/uploads/{uploadId}/complete',
  operationId: 'completeUpload',
  summary: 'Verify and complete an upload',
  pathParams: z.object({ uploadId }),
  response: {
    status: 200,
    schema: uploadSchema,
    description:
      'The verified upload. Completing an already verified upload returns it again when `sha256` is its digest; any other `sha256` is 422 `validation_error` (issue code `sha256_mismatch`).',
  },
  operation: 'uploads.complete',
  scope: canCreateUploads, // another key's upload is 404, checked in prepare
  schema: completeUploadRequest,
  prepare: async (body, ctx) => ({
    upload: await findCompletableUpload(getPrisma(), ctx.key, ctx.params.uploadId ?? ''),
    sha256: body.sha256,
  }),
  run: async ({ upload, sha256 }) => ({ kind: 'resource', status: 200, body: await completeUpload(getPrisma(), upload, sha256) }),
});
