import type { Job, PrismaClient } from '../../db/generated/client';
import { chargedUnits, type JobInput } from '../job-row';
import { ApiError } from '../errors';
import { clampLimit, iso, keysetPageQuery, toPage, WITH_KEY } from '../pagination';
import { keyMatch } from './usage-events';

import { JOB_ID_PATTERN, JOB_STATUSES } from '../../contract/values';

export { JOB_STATUSES };
export type JobStatusFilter = (typeof JOB_STATUSES)[number];

type JobWithKey = Job & { apiKey: { prefix: string; label: string | null } };

export function toJobView(job: JobWithKey) {
  return {
    id: job.id,
    operation: job.operation,
    status: job.status,
    engine: job.engine,
    units: job.units,
    /** What the job costs its key: its units, held until it ends; none when it failed or was cancelled in time. */
    charged_units: chargedUnits({ status: job.status, units: job.units, charged_on_cancel: job.chargedOnCancel }),
    attempts: job.attempts,
    api_key_id: job.apiKeyId,
    key_prefix: job.apiKey.prefix,
    request_id: job.requestId,
    result_mime_type: job.resultMimeType,
    error_code: job.errorCode,
    error_message: job.errorMessage,
    created_at: job.createdAt.toISOString(),
    updated_at: iso(job.updatedAt),
  };
}

export type JobView = ReturnType<typeof toJobView>;

export interface JobFilters {
  status?: JobStatusFilter;
  apiKeyId?: string;
  /** A key's id, the start of its prefix or part of its label. */
  key?: string;
  operation?: string;
  /** Inclusive lower and exclusive upper bounds on created_at. */
  from?: Date;
  to?: Date;
}

export async function listJobs(
  db: PrismaClient,
  input: JobFilters & { cursor?: string; limit?: number } = {},
): Promise<{ items: JobView[]; nextCursor: string | null; prevCursor: string | null }> {
  const limit = clampLimit(input.limit);
  const filter = {
    ...(input.status ? { status: input.status } : {}),
    ...(input.apiKeyId ? { apiKeyId: input.apiKeyId } : {}),
    ...(input.key ? { apiKey: keyMatch(input.key) } : {}),
    ...(input.operation ? { operation: input.operation } : {}),
    ...(input.from || input.to ? { createdAt: { ...(input.from ? { gte: input.from } : {}), ...(input.to ? { lt: input.to } : {}) } } : {}),
  };
  const rows = await db.job.findMany(keysetPageQuery(filter, input.cursor, limit, WITH_KEY, isJobId));
  return toPage(rows, limit, toJobView, input.cursor, isJobId);
}

/** What the caller asked for, in the API's own terms (not where the input's bytes are stored). */
export interface JobRequestView {
  prompt: string;
  input_upload_id: string | null;
}

function toRequestView(input: JobInput): JobRequestView {
  const upload = input.inputUpload;
  // Older jobs kept only the storage key, `uploads/<key id>/<upload id>[...]`.
  const uploadId = upload ? (upload.uploadId ?? upload.storageKey.split('/')[2]?.split('.')[0] ?? null) : null;
  return { prompt: input.prompt, input_upload_id: uploadId };
}

/** One job with its input as submitted (the operator sees what the caller asked for). */
export async function getJob(db: PrismaClient, id: string): Promise<JobView & { input: JobRequestView }> {
  const job = await db.job.findUnique({ where: { id }, include: WITH_KEY });
  if (!job) throw new ApiError('not_found', { message: `No job with id "${id}".` });
  return { ...toJobView(job), input: toRequestView(job.input as unknown as JobInput) };
}

const isJobId = (id: string) => JOB_ID_PATTERN.test(id);
