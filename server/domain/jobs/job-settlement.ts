import type { SqlDb } from '../../db/client';
import type { JobStatus } from '../../contract/values';
import sql, { raw } from 'sql-template-tag';
import { prepared } from '../billing/sql-statement';
import { captureJobHold, releaseJobHold, type JobFailure, type JobUsage } from '../billing/job-holds';
import { jobEventCte } from '../webhooks/job-events';
import { announceDeliveries } from '../webhooks/webhook-queue';
import type { JobRow } from '../job-row';

// When a job's unit hold is settled: on success, on failure, and for open jobs whose hold is gone.
// Every state change that touches units is one SQL statement of billing/job-holds.ts, so a job's
// units are captured or released exactly once however many workers (or retries of a dead
// worker's attempt) reach the same job.

export type SucceedOutcome = 'succeeded' | 'already_finished' | 'hold_lost';

/**
 * Success, in one statement (billing/job-holds.ts captureJobHold): captures the job's hold,
 * records the usage event (with the job id) and sets the job succeeded with its result. Nothing
 * happens unless the job is still open AND its hold is still held, so a second worker can never
 * charge the same job again, nor a worker a job cancelled meanwhile.
 */
export async function succeedJob(
  db: SqlDb,
  job: JobRow,
  usage: JobUsage,
  result: { key: string; mimeType: string },
): Promise<SucceedOutcome> {
  const row = await captureJobHold(db, job, usage, result);
  await announceDeliveries(row.events);
  if (row.done === 1) return 'succeeded';
  // Read again: the statement's own snapshot predates a cancel or success it waited for.
  const now = await db.pool.query<{ status: JobStatus }>(prepared('wgs-job-status', sql`SELECT status FROM jobs WHERE id = ${job.id}`));
  const status = now.rows[0]?.status ?? row.job_status;
  return status === 'submitted' || status === 'running' ? 'hold_lost' : 'already_finished';
}

/**
 * Failure, in one statement (billing/job-holds.ts releaseJobHold): sets the job failed with its
 * error, returns the held units and records the failed attempt. Nothing happens when the job
 * already finished. Returns whether this call failed the job.
 */
export async function failJob(db: SqlDb, jobId: string, failure: JobFailure): Promise<boolean> {
  const row = await releaseJobHold(db, jobId, failure);
  await announceDeliveries(row.events);
  return row.failed === 1;
}

/** What a failed job tells its customer (GET /v1/jobs/{id}'s error.message). */
export const PROVIDER_FAILURE_MESSAGE =
  'The video provider was unavailable. No units were charged; submit the job again with a new Idempotency-Key (the one it was submitted with answers with this job).';
export const EXHAUSTED_MESSAGE =
  'The job could not be completed. No units were charged; submit the job again with a new Idempotency-Key (the one it was submitted with answers with this job).';

/**
 * Open jobs whose hold is no longer held (its lease ran out and the hold sweeper returned the
 * units, e.g. after a long outage of every worker) can never be charged: they are failed.
 * Safe on many instances at once. Returns how many jobs it failed.
 */
export async function failJobsWithoutHold(db: SqlDb, message = EXHAUSTED_MESSAGE): Promise<number> {
  const { rows } = await db.pool.query<{ failed: number; events: string[] | null }>(
    prepared(
      'wgs-job-fail-orphans',
      sql`WITH failed AS (
             UPDATE jobs j SET status = 'failed', error_code = 'internal_error', error_message = ${message}::text, updated_at = now()
               FROM unit_holds h
              WHERE j.hold_id = h.id AND j.status IN ('submitted', 'running') AND h.status <> 'held'
             RETURNING j.id, j.api_key_id
           ), ${raw(jobEventCte('failed', 'failed'))}
           SELECT (SELECT count(*) FROM failed)::int AS failed, (SELECT array_agg(id) FROM event) AS events`,
    ),
  );
  await announceDeliveries(rows[0]!.events);
  return rows[0]!.failed;
}
