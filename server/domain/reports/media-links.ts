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

/** A succeeded job's result (its video), or null while it has none. */
export async function jobResultLink(db: PrismaClient, id: string): Promise<MediaLink | null> {
  const job = await db.job.findUnique({ where: { id }, select: { status: true, resultKey: true, resultMimeType: true } });
  if (!job) throw new ApiError('not_found', { message: `No job with id "${id}".` });
  return job.status === 'succeeded' && job.resultKey && job.resultMimeType ? link(job.resultKey, job.resultMimeType) : null;
}

/** A verified upload's bytes (only verified bytes are sealed and kept), or null otherwise. */
export async function uploadFileLink(db: PrismaClient, id: string): Promise<MediaLink | null> {
  const upload = await db.upload.findUnique({ where: { id }, select: { status: true, storageKey: true, mimeType: true } });
  if (!upload) throw new ApiError('not_found', { message: `No upload with id "${id}".` });
  return upload.status === 'verified' ? link(upload.storageKey, upload.mimeType) : null;
}

/** The jobs that took this upload as their input, newest first. */
export async function jobsUsingUpload(db: PrismaClient, id: string) {
  const jobs = await db.job.findMany({
    where: { input: { path: ['inputUpload', 'uploadId'], equals: id } },
    orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
    take: 50,
    select: { id: true, status: true, operation: true, requestId: true, createdAt: true },
  });
  return jobs.map((job) => ({
    id: job.id,
    status: job.status,
    operation: job.operation,
    request_id: job.requestId,
    created_at: job.createdAt.toISOString(),
  }));
}
