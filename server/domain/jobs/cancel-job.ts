import type { JobView } from '../../contract/jobs-and-uploads';
import type { SqlDb } from '../../db/client';
import { settleHoldCtes, usageEventCte } from '../billing/settlement-sql';
import { ApiError } from '../errors';
import { jobEventCte } from '../webhooks/job-events';
import { announceDeliveries } from '../webhooks/webhook-queue';
import type { JobRow } from './job-store';
import { findOwnJob, toJobView } from './job-view';

// POST /v1/jobs/{jobId}/cancel, by the job's state (CONTRACT.md §8). A `submitted` job (its
// provider not yet called) turns `cancelled` and its hold is released; a `running` one turns
// `cancelled` and its hold is captured, with a usage event (`job_cancelled`): its provider was
// already at work, which the operator pays for. The worker running it notices (run-video-job.ts),
// stops polling and asks the provider to cancel where its API can. Each state has its own
// statement that acts only on a job still in that state, and succeedJob only captures a
// still-open job (its row locked first): whichever takes the row's lock first is the outcome.

const CANCEL_SUBMITTED_SQL = `WITH job AS (
             UPDATE jobs SET status = 'cancelled', updated_at = now()
              WHERE id = $1 AND api_key_id = $2 AND status = 'submitted'
             RETURNING *
           ), ${settleHoldCtes('released', '(SELECT hold_id FROM job)')}, ${jobEventCte('job', 'cancelled')}
           SELECT job.*, (SELECT array_agg(id) FROM event) AS events FROM job`;

const CANCEL_RUNNING_SQL = `WITH job AS (
             UPDATE jobs SET status = 'cancelled', charged_on_cancel = true, updated_at = now()
              WHERE id = $1 AND api_key_id = $2 AND status = 'running'
             RETURNING *
           ), ${settleHoldCtes('captured', '(SELECT hold_id FROM job)')}, ${usageEventCte(
             {
               id: 'gen_random_uuid()',
               api_key_id: 'h.api_key_id',
               package_version_id: '(SELECT package_version_id FROM api_keys WHERE id = h.api_key_id)',
               operation: 'j.operation',
               engine: 'j.engine',
               outcome: `'succeeded'`,
               units: 'h.units',
               error_code: `'job_cancelled'`,
               request_id: 'j.request_id',
               hold_id: 'h.id',
               job_id: 'j.id',
               input_upload_id: `j.input->'inputUpload'->>'uploadId'`,
               duration_ms: '(extract(epoch FROM now() - j.created_at) * 1000)::int',
               engines_tried: `CASE WHEN cardinality(j.engines) > 0 THEN j.engines ELSE ARRAY[j.engine] END`,
             },
             'hold h, job j',
           )}, ${jobEventCte('job', 'cancelled')}
           SELECT job.*, (SELECT array_agg(id) FROM event) AS events FROM job`;

type CancelledRow = JobRow & { events: string[] | null };

async function cancelIn(db: SqlDb, name: string, text: string, apiKeyId: string, jobId: string): Promise<CancelledRow | undefined> {
  const { rows } = await db.pool.query<CancelledRow>({ name, text, values: [jobId, apiKeyId] });
  return rows[0];
}

/**
 * Cancels a submitted job of the key (units returned) or a running one (units charged). A job
 * that has already ended is 409 `job_not_cancellable` with its status in `details`.
 */
export async function cancelOwnJob(db: SqlDb, apiKeyId: string, jobId: string, origin: string): Promise<JobView> {
  // Submitted first: a job only moves on from `submitted` to `running`, so one that started
  // between the two statements is found by the second.
  const cancelled =
    (await cancelIn(db, 'wgs-job-cancel-submitted', CANCEL_SUBMITTED_SQL, apiKeyId, jobId)) ??
    (await cancelIn(db, 'wgs-job-cancel-running', CANCEL_RUNNING_SQL, apiKeyId, jobId));
  if (cancelled) {
    await announceDeliveries(cancelled.events);
    return toJobView(cancelled, origin);
  }
  const job = await findOwnJob(db, apiKeyId, jobId);
  throw new ApiError('job_not_cancellable', {
    message: `The job has already ended (${job.status}) and cannot be cancelled.`,
    details: { status: job.status },
  });
}
