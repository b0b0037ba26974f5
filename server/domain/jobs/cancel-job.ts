import type { JobView } from '../../contract/jobs-and-uploads';
import type { SqlDb } from '../../db/client';
import { cancelRunningJob, cancelSubmittedJob } from '../billing/job-holds';
import { ApiError } from '../errors';
import { announceDeliveries } from '../webhooks/webhook-queue';
import { findOwnJob, toJobView } from './job-view';

// POST /v1/jobs/{jobId}/cancel, by the job's state (CONTRACT.md §8). A `submitted` job (its
// provider not yet called) turns `cancelled` and its hold is released; a `running` one turns
// `cancelled` and its hold is captured, with a usage event (`job_cancelled`): its provider was
// already at work, which the operator pays for. The worker running it notices (run-video-job.ts),
// stops polling and asks the provider to cancel where its API can. Each state has its own
// statement (billing/job-holds.ts) that acts only on a job still in that state, and succeedJob
// only captures a still-open job (its row locked first): whichever takes the row's lock first is
// the outcome.

/**
 * Cancels a submitted job of the key (units returned) or a running one (units charged). A job
 * that has already ended is 409 `job_not_cancellable` with its status in `details`.
 */
export async function cancelOwnJob(db: SqlDb, apiKeyId: string, jobId: string, origin: string): Promise<JobView> {
  // Submitted first: a job only moves on from `submitted` to `running`, so one that started
  // between the two statements is found by the second.
  const cancelled = (await cancelSubmittedJob(db, apiKeyId, jobId)) ?? (await cancelRunningJob(db, apiKeyId, jobId));
  if (cancelled) {
    await announceDeliveries(cancelled.events);
    return toJobView(cancelled, origin);
  }
  const job = await findOwnJob(db, apiKeyId, jobId);
  // CONTRACT.md §2: every 409 carries Retry-After. A retry gets this same answer: the job has ended.
  throw new ApiError('job_not_cancellable', {
    message: `The job has already ended (${job.status}) and cannot be cancelled.`,
    details: { status: job.status },
    retryAfter: 1,
  });
}
