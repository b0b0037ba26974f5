import type { JobView } from '../../contract/jobs-and-uploads';
import type { SqlDb } from '../../db/client';
import { settleHoldCtes } from '../billing/settlement-sql';
import { ApiError } from '../errors';
import { jobEventCte } from '../webhooks/job-events';
import { announceDeliveries } from '../webhooks/webhook-queue';
import type { JobRow } from './job-store';
import { findOwnJob, toJobView } from './job-view';

// POST /v1/jobs/{jobId}/cancel. The job turns `cancelled` and its hold is released in one
// statement that only acts on a still-open job, and succeedJob only captures a still-open job
// (its row locked first): whichever of the two takes the row's lock first is the outcome, and
// the other finds the job ended. A worker still running the attempt notices (run-video-job.ts)
// and stops; a result it gets anyway is discarded, never charged.

const CANCEL_JOB_SQL = `WITH job AS (
             UPDATE jobs SET status = 'cancelled', updated_at = now()
              WHERE id = $1 AND api_key_id = $2 AND status IN ('submitted', 'running')
             RETURNING *
           ), ${settleHoldCtes('released', '(SELECT hold_id FROM job)')}, ${jobEventCte('job', 'cancelled')}
           SELECT job.*, (SELECT count(*) FROM hold)::int AS released, (SELECT array_agg(id) FROM event) AS events FROM job`;

/**
 * Cancels a submitted or running job of the key and returns its units at once. A job that has
 * already ended is 409 `job_not_cancellable` with its status in `details`.
 */
export async function cancelOwnJob(db: SqlDb, apiKeyId: string, jobId: string, origin: string): Promise<JobView> {
  const { rows } = await db.pool.query<JobRow & { released: number; events: string[] | null }>({
    name: 'wgs-job-cancel',
    text: CANCEL_JOB_SQL,
    values: [jobId, apiKeyId],
  });
  if (rows[0]) {
    await announceDeliveries(rows[0].events);
    return toJobView(rows[0], origin);
  }
  const job = await findOwnJob(db, apiKeyId, jobId);
  throw new ApiError('job_not_cancellable', {
    message: `The job has already ended (${job.status}) and cannot be cancelled.`,
    details: { status: job.status },
  });
}
