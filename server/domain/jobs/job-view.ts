import type { JobView } from '../../contract/jobs-and-uploads';
import { signObjectUrl } from '../../storage/signed-urls';
import { ApiError } from '../errors';
import { JOB_ID_PATTERN } from '../../contract/values';
import type { SqlDb } from '../../db/client';
import { chargedUnits, type JobRow } from '../job-row';
import { findJob } from './job-store';

// The Job resource of CONTRACT.md §5. The result URL is signed afresh on every read, so a
// client that polls late still gets a URL that works for the full TTL.

export function toJobView(
  job: Pick<
    JobRow,
    | 'id'
    | 'status'
    | 'units'
    | 'created_at'
    | 'updated_at'
    | 'result_key'
    | 'result_mime_type'
    | 'error_code'
    | 'error_message'
    | 'charged_on_cancel'
  >,
  origin: string,
): JobView {
  const succeeded = job.status === 'succeeded' && job.result_key && job.result_mime_type;
  let result: JobView['result'] = null;
  if (succeeded) {
    const signed = signObjectUrl(origin, job.result_key!, job.result_mime_type!);
    result = { url: signed.url, expires_at: signed.expiresAt.toISOString(), mime_type: job.result_mime_type! };
  }
  return {
    job_id: job.id,
    object: 'job',
    operation: 'videos.generate',
    status: job.status,
    created_at: job.created_at.toISOString(),
    updated_at: job.updated_at.toISOString(),
    result,
    error: job.status === 'failed' ? { code: job.error_code ?? 'internal_error', message: job.error_message ?? 'The job failed.' } : null,
    usage: { charged_units: chargedUnits(job) },
  };
}

/** The calling key's own job; anything else (unknown, malformed, another key's) is 404. */
export async function findOwnJob(db: SqlDb, apiKeyId: string, jobId: string | undefined): Promise<JobRow> {
  if (!jobId || !JOB_ID_PATTERN.test(jobId)) throw new ApiError('not_found', { message: 'No such job.' });
  const job = await findJob(db, jobId);
  if (!job || job.api_key_id !== apiKeyId) throw new ApiError('not_found', { message: 'No such job.' });
  return job;
}

/** GET /v1/jobs/{jobId}: the calling key's own job; anything else (unknown, malformed, another key's) is 404. */
export async function readOwnJob(db: SqlDb, apiKeyId: string, jobId: string | undefined, origin: string): Promise<JobView> {
  return toJobView(await findOwnJob(db, apiKeyId, jobId), origin);
}
