import { getConfig } from '../../../config';
import { getSqlDb } from '../../../db/client';
import type { JobView } from '../../../contract/jobs-and-uploads';
import { findOwnJob, toJobView } from '../../../domain/jobs/job-view';
import { ApiError } from '../../../domain/errors';
import { verifyObjectUrl } from '../../../storage/signed-urls';
import { jsonResponse } from '../../responses';
import { objectResponse } from '../../serve-signed-object';
import { videosGenerateRoute } from '../../routes/jobs';
import type { RouteContext } from '../../route-context';
import { refuseParam } from '../openai-errors';
import { resolveModel } from '../openai-models';
import { multipartFingerprintBody, readMultipartBody, readJsonBody, type MultipartBody } from '../openai-request';
import { defineOpenAIGetRoute, defineOpenAIPostRoute, translated, type Translation } from '../openai-route';

// POST /openai/v1/videos, GET /openai/v1/videos/{video_id} and GET /openai/v1/videos/{video_id}/content:
// video jobs (videos.generate, run by the /v1 route's steps and the job worker) in the shape of
// OpenAI's videos resource. The video's id is the job's.

const STATUS: Record<JobView['status'], string> = {
  submitted: 'queued',
  running: 'in_progress',
  succeeded: 'completed',
  failed: 'failed',
  cancelled: 'failed',
};

const unix = (timestamp: string) => Math.floor(Date.parse(timestamp) / 1000);

/**
 * A job as OpenAI's video object; `model` is the operation's own model id. No `seconds` or `size`:
 * the package's engine decides them, and they are not known before the video is.
 */
function videoOf(job: JobView, prompt: string) {
  const done = job.status === 'succeeded';
  const error = job.status === 'cancelled' ? { code: 'cancelled', message: 'The job was cancelled.' } : job.error;
  return {
    id: job.job_id,
    object: 'video',
    created_at: unix(job.created_at),
    status: STATUS[job.status],
    model: 'videos.generate',
    progress: done ? 100 : 0,
    completed_at: done ? unix(job.updated_at) : null,
    // When the video may be deleted (OUTPUT_RETENTION_HOURS after it was made), as OpenAI's field means;
    // not its signed URL's expiry, which each read moves and which the content route does not need.
    expires_at: done ? unix(job.updated_at) + getConfig().OUTPUT_RETENTION_HOURS * 3600 : null,
    error,
    prompt,
    remixed_from_video_id: null,
    usage: job.usage,
  };
}

/** The calling key's own job and its prompt; anything else is 404 in the words of this surface. */
async function ownVideo(ctx: RouteContext) {
  const job = await findOwnJob(getSqlDb(), ctx.key.id, ctx.params.video_id ?? '').catch((error: unknown) => {
    throw error instanceof ApiError && error.code === 'not_found' ? new ApiError('not_found', { message: 'No such video.' }) : error;
  });
  return { view: toJobView(job, ctx.origin), prompt: job.input.prompt };
}

/** The form as the SDK's videos.create sends it (multipart), or the same fields as JSON. */
async function readVideoBody(request: Request, maxBytes: number): Promise<MultipartBody> {
  if (/^application\/json/i.test(request.headers.get('content-type') ?? '')) {
    const json = await readJsonBody(request);
    return { fields: json as Record<string, string>, files: {} };
  }
  return readMultipartBody(request, maxBytes, 'multipart/form-data or application/json');
}

function translateVideo(body: MultipartBody, ctx: RouteContext): Translation<unknown> {
  resolveModel(ctx.key, body.fields.model, ['videos.generate'], true);
  const unknown =
    Object.keys(body.fields).find((name) => !['model', 'prompt', 'seconds', 'size'].includes(name)) ?? Object.keys(body.files)[0];
  if (unknown) throw refuseParam(unknown, `${unknown} is not supported by this service (docs/openai-compatible.md lists what is).`);
  for (const name of ['seconds', 'size']) {
    if (body.fields[name] !== undefined) throw refuseParam(name, `${name}: the package fixes the video's length and size; leave it out.`);
  }
  return translated({
    steps: videosGenerateRoute.steps,
    v1Body: { prompt: body.fields.prompt },
    params: { prompt: 'prompt' },
    fingerprinted: multipartFingerprintBody(body),
    // A replay's body is this request's (the same fingerprint): the same prompt.
    respond: (stored) =>
      jsonResponse(
        200,
        videoOf(JSON.parse(stored) as JobView, typeof body.fields.prompt === 'string' ? body.fields.prompt : ''),
        ctx.requestId,
      ),
  });
}

export const createVideoRoute = defineOpenAIPostRoute({
  path: '/openai/v1/videos',
  operationId: 'createVideo',
  operation: 'videos.generate',
  sells: ['videos.generate'],
  summary: 'Create a video job (videos.generate)',
  read: (request, key) => readVideoBody(request, key.maxUploadBytes),
  translate: translateVideo,
});

export const getVideoRoute = defineOpenAIGetRoute({
  path: '/openai/v1/videos/{video_id}',
  operationId: 'retrieveVideo',
  operation: 'videos.get',
  summary: 'Retrieve an owned video job',
  handle: async (ctx) => {
    const { view, prompt } = await ownVideo(ctx);
    return videoOf(view, prompt);
  },
});

export const getVideoContentRoute = defineOpenAIGetRoute({
  path: '/openai/v1/videos/{video_id}/content',
  operationId: 'downloadVideoContent',
  operation: 'videos.content',
  summary: "Download a completed video job's video",
  handle: async (ctx) => {
    const variant = new URL(ctx.request.url).searchParams.get('variant') ?? 'video';
    if (variant !== 'video') throw refuseParam('variant', 'variant: only "video" is served.', 'unsupported_value');
    const { view: job } = await ownVideo(ctx);
    const verified = job.result ? verifyObjectUrl(new URL(job.result.url)) : undefined;
    if (!verified?.ok) throw new ApiError('not_found', { message: `The video ${job.job_id} is ${STATUS[job.status]}: it has no content.` });
    return objectResponse(verified.key, verified.contentType, ctx.requestId, ctx.request);
  },
});
