import type { PrismaClient } from '../../db/generated/client';
import { signObjectUrl } from '../../storage/signed-urls';
import { ApiError } from '../errors';

// Fresh short-lived URLs for operators to look at media: signed on every read (like the API's job
// result), relative to the dashboard's own origin, so a page left open never holds a stale one.

export interface MediaLink {
  url: string;
  expires_at: string;
  mime_type: string;
}

function link(key: string, mimeType: string): MediaLink {
  const signed = signObjectUrl('', key, mimeType);
  return { url: signed.url, expires_at: signed.expiresAt.toISOString(), mime_type: mimeType };
}

/** A succeeded job's result (its video), or null while it has none, or once retention deleted it (OUTPUT_RETENTION_HOURS). */
export async function jobResultLink(db: PrismaClient, id: string): Promise<MediaLink | null> {
  const job = await db.job.findUnique({ where: { id }, select: { status: true, resultKey: true, resultMimeType: true } });
  if (!job) throw new ApiError('not_found', { message: `No job with id "${id}".` });
  if (job.status !== 'succeeded' || !job.resultKey || !job.resultMimeType) return null;
  const stored = await db.storedOutput.findUnique({ where: { storageKey: job.resultKey }, select: { deletedAt: true } });
  return stored?.deletedAt ? null : link(job.resultKey, job.resultMimeType);
}

/** A verified upload's bytes (only verified bytes are sealed and kept) until retention deletes them, or null otherwise. */
export async function uploadFileLink(db: PrismaClient, id: string): Promise<MediaLink | null> {
  const upload = await db.upload.findUnique({ where: { id }, select: { status: true, storageKey: true, mimeType: true, deletedAt: true } });
  if (!upload) throw new ApiError('not_found', { message: `No upload with id "${id}".` });
  return upload.status === 'verified' && !upload.deletedAt ? link(upload.storageKey, upload.mimeType) : null;
}

export interface UploadCall {
  request_id: string;
  operation: string;
  /** A usage event's outcome, or the status of a video job that has not finished (no usage event yet). */
  outcome: 'succeeded' | 'failed' | 'submitted' | 'running';
  /** Units charged; for an unfinished job, the units it holds. */
  units: number;
  created_at: string;
  job_id: string | null;
  /** False for an unfinished job: it has no usage row yet. */
  has_usage_row: boolean;
}

const CALLS_SHOWN = 50;

/**
 * Every /v1 call that consumed this upload (images.generate, audio.transcribe, videos.generate),
 * from the usage events that record it, and the video jobs on it still running, newest first.
 */
export async function callsUsingUpload(db: PrismaClient, id: string): Promise<UploadCall[]> {
  const [events, unfinished] = await Promise.all([
    db.usageEvent.findMany({
      where: { inputUploadId: id },
      orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
      take: CALLS_SHOWN,
      select: { requestId: true, operation: true, outcome: true, units: true, createdAt: true, jobId: true },
    }),
    // Found by their status first (an indexed, short list), then by the upload in their input.
    db.job.findMany({
      where: { status: { in: ['submitted', 'running'] }, input: { path: ['inputUpload', 'uploadId'], equals: id } },
      orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
      take: CALLS_SHOWN,
      select: { id: true, status: true, operation: true, units: true, requestId: true, createdAt: true },
    }),
  ]);
  const calls: UploadCall[] = [
    ...unfinished.map((job) => ({
      request_id: job.requestId,
      operation: job.operation,
      outcome: job.status as 'submitted' | 'running',
      units: job.units,
      created_at: job.createdAt.toISOString(),
      job_id: job.id,
      has_usage_row: false,
    })),
    ...events.map((event) => ({
      request_id: event.requestId,
      operation: event.operation,
      outcome: event.outcome,
      units: event.units,
      created_at: event.createdAt.toISOString(),
      job_id: event.jobId,
      has_usage_row: true,
    })),
  ];
  return calls.sort((a, b) => b.created_at.localeCompare(a.created_at)).slice(0, CALLS_SHOWN);
}
