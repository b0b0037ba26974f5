import type { SqlDb } from '../../db/client';
import type { JobStatus } from '../../contract/values';
import { settleHoldCtes, usageEventCte } from '../billing/settlement-sql';
import { jobEventCte } from '../webhooks/job-events';
import { announceDeliveries } from '../webhooks/webhook-queue';
import type { JobRow } from './job-store';

// The settlement of a job's unit hold. Every state change that touches units is one SQL
// statement, so a job's units are captured or released exactly once however many workers (or
// retries of a dead worker's attempt) reach the same job.

export interface JobUsage {
  usageEventId: string;
  packageVersionId: string;
  durationMs: number;
  /** The engine that answered (else the last tried); the job's first engine when omitted. */
  engine?: string;
  enginesTried?: readonly string[];
  /** What the providers reported and its cost: billing/provider-cost.ts meteringJson. */
  metering?: string | null;
}

export type SucceedOutcome = 'succeeded' | 'already_finished' | 'hold_lost';

/** The upload a job's input names (JobInput.inputUpload.uploadId), for its usage event. */
const JOB_INPUT_UPLOAD = `input->'inputUpload'->>'uploadId'`;

const SUCCEED_JOB_SQL = `WITH job AS (
             SELECT id, hold_id, ${JOB_INPUT_UPLOAD} AS input_upload_id
               FROM jobs WHERE id = $1 AND status IN ('submitted', 'running') FOR UPDATE
           ), ${settleHoldCtes('captured', '(SELECT hold_id FROM job)', '$11::jsonb')}, ${usageEventCte(
             {
               id: '$2::uuid',
               api_key_id: 'api_key_id',
               package_version_id: '$3::uuid',
               operation: '$4::text',
               engine: '$5::text',
               outcome: `'succeeded'`,
               units: 'units',
               error_code: 'NULL',
               request_id: '$6::text',
               hold_id: 'id',
               job_id: '$1::text',
               input_upload_id: '(SELECT input_upload_id FROM job)',
               duration_ms: '$7::int',
               engines_tried: 'COALESCE($10::text[], ARRAY[]::text[])',
             },
             'hold',
             '$11::jsonb',
           )}, done AS (
             UPDATE jobs SET status = 'succeeded', result_key = $8, result_mime_type = $9, updated_at = now()
              WHERE id = $1 AND EXISTS (SELECT 1 FROM hold)
             RETURNING id, api_key_id
           ), ${jobEventCte('done', 'succeeded')}
           SELECT (SELECT count(*) FROM done)::int AS done, (SELECT count(*) FROM key)::int AS keys,
                  (SELECT count(*) FROM usage)::int AS usage, (SELECT array_agg(id) FROM event) AS events,
                  (SELECT status FROM jobs WHERE id = $1) AS job_status`;

/**
 * Success, in one statement: captures the job's hold, records the usage event (with the job
 * id) and sets the job succeeded with its result. Nothing happens unless the job is still
 * open AND its hold is still held, so a second worker can never charge the same job again, nor
 * a worker a job cancelled meanwhile.
 */
export async function succeedJob(
  db: SqlDb,
  job: JobRow,
  usage: JobUsage,
  result: { key: string; mimeType: string },
): Promise<SucceedOutcome> {
  const { rows } = await db.pool.query<{ done: number; job_status: JobStatus | null; events: string[] | null }>({
    name: 'wgs-job-succeed',
    text: SUCCEED_JOB_SQL,
    values: [
      job.id,
      usage.usageEventId,
      usage.packageVersionId,
      job.operation,
      usage.engine ?? job.engine,
      job.request_id,
      usage.durationMs,
      result.key,
      result.mimeType,
      usage.enginesTried ?? null,
      usage.metering ?? null,
    ],
  });
  const row = rows[0]!;
  await announceDeliveries(row.events);
  if (row.done === 1) return 'succeeded';
  // Read again: the statement's own snapshot predates a cancel or success it waited for.
  const now = await db.pool.query<{ status: JobStatus }>({
    name: 'wgs-job-status',
    text: 'SELECT status FROM jobs WHERE id = $1',
    values: [job.id],
  });
  const status = now.rows[0]?.status ?? row.job_status;
  return status === 'submitted' || status === 'running' ? 'hold_lost' : 'already_finished';
}

export interface JobFailure {
  code: string;
  message: string;
  /** A failed usage event (0 units) when the attempt reached an engine. */
  usage?: JobUsage & { packageVersionId: string };
}

const FAIL_JOB_SQL = `WITH job AS (
             UPDATE jobs SET status = 'failed', error_code = $2, error_message = $3, updated_at = now()
              WHERE id = $1 AND status IN ('submitted', 'running')
             RETURNING id, api_key_id, hold_id, operation, engine, request_id, ${JOB_INPUT_UPLOAD} AS input_upload_id
           ), ${settleHoldCtes('released', '(SELECT hold_id FROM job)', '$9::jsonb')}, ${usageEventCte(
             {
               id: '$4::uuid',
               api_key_id: 'h.api_key_id',
               package_version_id: '$5::uuid',
               operation: 'j.operation',
               engine: 'COALESCE($7::text, j.engine)',
               outcome: `'failed'`,
               units: '0',
               error_code: '$2::text',
               request_id: 'j.request_id',
               hold_id: 'h.id',
               job_id: 'j.id',
               input_upload_id: 'j.input_upload_id',
               duration_ms: '$6::int',
               engines_tried: 'COALESCE($8::text[], ARRAY[]::text[])',
             },
             'hold h, job j WHERE $4::uuid IS NOT NULL',
             '$9::jsonb',
           )}, ${jobEventCte('job', 'failed')}
           SELECT (SELECT count(*) FROM job)::int AS failed, (SELECT count(*) FROM key)::int AS keys,
                  (SELECT count(*) FROM usage)::int AS usage, (SELECT array_agg(id) FROM event) AS events`;

/**
 * Failure, in one statement: sets the job failed with its error, returns the held units and
 * records the failed attempt. Nothing happens when the job already finished. Returns whether
 * this call failed the job.
 */
export async function failJob(db: SqlDb, jobId: string, failure: JobFailure): Promise<boolean> {
  const { rows } = await db.pool.query<{ failed: number; events: string[] | null }>({
    name: 'wgs-job-fail',
    text: FAIL_JOB_SQL,
    values: [
      jobId,
      failure.code,
      failure.message,
      failure.usage?.usageEventId ?? null,
      failure.usage?.packageVersionId ?? null,
      failure.usage?.durationMs ?? null,
      failure.usage?.engine ?? null,
      failure.usage?.enginesTried ?? null,
      failure.usage?.metering ?? null,
    ],
  });
  await announceDeliveries(rows[0]!.events);
  return rows[0]!.failed === 1;
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
  const { rows } = await db.pool.query<{ failed: number; events: string[] | null }>({
    name: 'wgs-job-fail-orphans',
    text: `WITH failed AS (
             UPDATE jobs j SET status = 'failed', error_code = 'internal_error', error_message = $1, updated_at = now()
               FROM unit_holds h
              WHERE j.hold_id = h.id AND j.status IN ('submitted', 'running') AND h.status <> 'held'
             RETURNING j.id, j.api_key_id
           ), ${jobEventCte('failed', 'failed')}
           SELECT (SELECT count(*) FROM failed)::int AS failed, (SELECT array_agg(id) FROM event) AS events`,
    values: [message],
  });
  await announceDeliveries(rows[0]!.events);
  return rows[0]!.failed;
}
