import { z } from 'zod';
import { jobId } from '../../contract/fields';
import { getPrisma, getSqlDb } from '../../db/client';
import { cancelJobRequest, jobSchema, submittedJobSchema, videosGenerateRequest } from '../../contract/jobs-and-uploads';
import { cancelOwnJob } from '../../domain/jobs/cancel-job';
import { findOwnJob, readOwnJob } from '../../domain/jobs/job-view';
import { prepareVideosGenerate, submitVideoJob } from '../../domain/jobs/submit-video-job';
import { defineGetRoute, definePostRoute } from '../pipeline';

// POST /v1/videos/generate (202 Job), GET /v1/jobs/{jobId} and POST /v1/jobs/{jobId}/cancel.

export const videosGenerateRoute = definePostRoute({
  path: '/v1/videos/generate',
  operationId: 'videosGenerate',
  summary: 'Submit a video job',
  response: { status: 202, schema: submittedJobSchema, description: 'The job, status `submitted`; poll GET /v1/jobs/{jobId}.' },
  scope: 'videos.generate',
  schema: videosGenerateRequest,
  prepare: (body, ctx) => prepareVideosGenerate(getPrisma(), getSqlDb(), body, ctx.key),
  charge: (prepared) => ({
    operation: 'videos.generate',
    units: prepared.units,
    engine: prepared.engine,
    inputUploadId: prepared.input.inputUpload?.uploadId,
    expectedCost: prepared.expectedCost,
  }),
  run: async (prepared, ctx) => {
    if (!ctx.hold) throw new Error('videos.generate must hold units');
    const job = await submitVideoJob(getSqlDb(), prepared, {
      apiKeyId: ctx.key.id,
      holdId: ctx.hold.holdId,
      requestId: ctx.requestId,
      idempotencyRecordId: ctx.idempotencyRecordId,
      origin: ctx.origin,
    });
    // The job row, the stored 202 and the hold's hand-over committed together.
    return { kind: 'resource', status: 202, body: job, settled: true };
  },
});

export const getJobRoute = defineGetRoute({
  path: '/v1/jobs/{jobId}',
  operationId: 'getJob',
  operation: 'jobs.get',
  summary: 'Retrieve an owned video job',
  pathParams: z.object({ jobId }),
  response: { status: 200, schema: jobSchema, description: 'The job; `result.url` is a fresh signed URL on every read.' },
  errors: [401, 404, 429, 500, 503],
  rateLimited: true,
  handle: (ctx) => readOwnJob(getSqlDb(), ctx.key.id, ctx.params.jobId, ctx.origin),
});

export const cancelJobRoute = definePostRoute({
  path: '/v1/jobs/{jobId}/cancel',
  operationId: 'cancelJob',
  summary: 'Cancel an owned video job (extension of v1)',
  pathParams: z.object({ jobId }),
  response: {
    status: 200,
    schema: jobSchema,
    description:
      'The job, now `cancelled`. A job still `submitted` (its provider not yet called) gets its units back at once (`usage.charged_units: 0`); ' +
      'a `running` job is charged (`usage.charged_units` its units): its provider is no longer polled and is asked to cancel where its API can. ' +
      'A result that arrives later is discarded. ' +
      'A job that has already ended is 409 `job_not_cancellable` with its `status` in `details`.',
  },
  // Like GET /v1/jobs/{jobId}: any active key, for its own jobs (another key's is 404).
  scope: () => true,
  operation: 'jobs.cancel',
  schema: cancelJobRequest,
  prepare: async (_body, ctx) => (await findOwnJob(getSqlDb(), ctx.key.id, ctx.params.jobId)).id,
  run: async (jobId, ctx) => ({ kind: 'resource', status: 200, body: await cancelOwnJob(getSqlDb(), ctx.key.id, jobId, ctx.origin) }),
});
