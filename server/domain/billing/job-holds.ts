import type pg from 'pg';
import sql, { raw, type Sql } from 'sql-template-tag';
import type { SqlDb } from '../../db/client';
import type { JobRow } from '../job-row';
import { jobEventCte } from '../webhooks/job-events';
import { recentJobCostSql } from './expected-job-cost';
import { settleHoldCtes, STILL_HELD, usageEventCte, type UsageEventColumn } from './settlement-sql';
import { prepared } from './sql-statement';

// The settlement of a video job's unit hold, each a statement that also moves the job and writes
// its webhook event, so a job's units are captured or released exactly once however many workers
// (or retries of a dead worker's attempt), cancels and sweeps reach the same job. The job code
// (domain/jobs) decides when; these are the statements.

export interface JobUsage {
  usageEventId: string;
  packageVersionId: string;
  durationMs: number;
  /** The engine that answered (else the last tried); the job's first engine when omitted. */
  engine?: string;
  enginesTried?: readonly string[];
  /** The usage event's error_code when not the job's own (a lost attempt's `request_lost`). */
  errorCode?: string;
  /** What the providers reported and its cost: billing/provider-cost.ts meteringJson. */
  metering?: string | null;
}

/**
 * The hold now belongs to the job: it stops counting against the key's concurrency (the
 * request is over) and its lease covers the job's whole life. On the caller's transaction (the
 * submit's, with the job row and its stored 202); false when the hold is gone.
 */
export async function handHoldToJob(client: pg.PoolClient, holdId: string, leaseSeconds: number): Promise<boolean> {
  const result = await client.query<{ detached: number }>(
    prepared(
      'wgs-job-detach-hold',
      sql`WITH hold AS (
             UPDATE unit_holds SET counts_in_flight = false, lease_until = now() + make_interval(secs => ${leaseSeconds}::int)
              WHERE id = ${holdId}::uuid AND ${STILL_HELD} AND counts_in_flight
             RETURNING api_key_id
           ), key AS (
             UPDATE api_keys k SET in_flight = k.in_flight - 1 FROM hold h WHERE k.id = h.api_key_id RETURNING k.id
           )
           SELECT (SELECT count(*) FROM hold)::int AS detached, (SELECT count(*) FROM key)::int AS keys`,
    ),
  );
  return result.rows[0]!.detached === 1;
}

/** The upload a job's input names (JobInput.inputUpload.uploadId), for its usage event. */
export const JOB_INPUT_UPLOAD = raw(`input->'inputUpload'->>'uploadId'`);
/** The engines job `j` may call (jobs from before engine lists have `engine` alone). */
export const JOB_ENGINE_LIST = sql`CASE WHEN cardinality(j.engines) > 0 THEN j.engines ELSE ARRAY[j.engine] END`;
const EVENT_IDS = sql`(SELECT array_agg(id) FROM event) AS events`;

/**
 * Success: captures the job's hold, records the usage event (with the job id) and sets the job
 * succeeded with its result. Nothing happens unless the job is still open AND its hold is still
 * held (its row locked first), so no second worker charges it again, nor a worker a job cancelled.
 */
export async function captureJobHold(
  db: SqlDb,
  job: Pick<JobRow, 'id' | 'operation' | 'engine' | 'request_id'>,
  usage: JobUsage,
  result: { key: string; mimeType: string },
): Promise<{ done: number; job_status: JobRow['status'] | null; events: string[] | null }> {
  const values: Record<UsageEventColumn, Sql> = {
    id: sql`${usage.usageEventId}::uuid`,
    api_key_id: sql`api_key_id`,
    package_version_id: sql`${usage.packageVersionId}::uuid`,
    operation: sql`${job.operation}::text`,
    engine: sql`${usage.engine ?? job.engine}::text`,
    outcome: sql`'succeeded'`,
    units: sql`units`,
    error_code: sql`NULL`,
    request_id: sql`${job.request_id}::text`,
    hold_id: sql`id`,
    job_id: sql`${job.id}::text`,
    input_upload_id: sql`(SELECT input_upload_id FROM job)`,
    duration_ms: sql`${usage.durationMs}::int`,
    engines_tried: sql`COALESCE(${usage.enginesTried ?? null}::text[], ARRAY[]::text[])`,
    surface: sql`surface`,
  };
  const { rows } = await db.pool.query(
    prepared(
      'wgs-job-succeed',
      sql`WITH job AS (
             SELECT id, hold_id, ${JOB_INPUT_UPLOAD} AS input_upload_id
               FROM jobs WHERE id = ${job.id}::text AND status IN ('submitted', 'running') FOR UPDATE
           ), ${settleHoldCtes('captured', sql`(SELECT hold_id FROM job)`, usage.metering ?? null)}, ${usageEventCte(values, sql`hold`)},
           done AS (
             UPDATE jobs SET status = 'succeeded', result_key = ${result.key}::text, result_mime_type = ${result.mimeType}::text,
                    updated_at = now()
              WHERE id = ${job.id}::text AND EXISTS (SELECT 1 FROM hold)
             RETURNING id, api_key_id
           ), ${raw(jobEventCte('done', 'succeeded'))}
           SELECT (SELECT count(*) FROM done)::int AS done, (SELECT count(*) FROM key)::int AS keys,
                  (SELECT count(*) FROM usage)::int AS usage, ${EVENT_IDS},
                  (SELECT status FROM jobs WHERE id = ${job.id}::text) AS job_status`,
    ),
  );
  return rows[0];
}

export interface JobFailure {
  code: string;
  message: string;
  /** A failed usage event (0 units) when the attempt reached an engine. */
  usage?: JobUsage & { packageVersionId: string };
}

/**
 * Failure: sets the job failed with its error, returns the held units and records the failed
 * attempt. Nothing happens when the job already finished.
 */
export async function releaseJobHold(db: SqlDb, jobId: string, failure: JobFailure): Promise<{ failed: number; events: string[] | null }> {
  const { usage } = failure;
  const values: Record<UsageEventColumn, Sql> = {
    id: sql`${usage?.usageEventId ?? null}::uuid`,
    api_key_id: sql`h.api_key_id`,
    package_version_id: sql`${usage?.packageVersionId ?? null}::uuid`,
    operation: sql`j.operation`,
    engine: sql`COALESCE(${usage?.engine ?? null}::text, j.engine)`,
    outcome: sql`'failed'`,
    units: sql`0`,
    error_code: sql`${usage?.errorCode ?? failure.code}::text`,
    request_id: sql`j.request_id`,
    hold_id: sql`h.id`,
    job_id: sql`j.id`,
    input_upload_id: sql`j.input_upload_id`,
    duration_ms: sql`${usage?.durationMs ?? null}::int`,
    engines_tried: sql`COALESCE(${usage?.enginesTried ?? null}::text[], ARRAY[]::text[])`,
    surface: sql`h.surface`,
  };
  const recorded = sql`${usage?.usageEventId ?? null}::uuid IS NOT NULL`;
  const { rows } = await db.pool.query(
    prepared(
      'wgs-job-fail',
      sql`WITH job AS (
             UPDATE jobs SET status = 'failed', error_code = ${failure.code}::text, error_message = ${failure.message}::text,
                    updated_at = now()
              WHERE id = ${jobId}::text AND status IN ('submitted', 'running')
             RETURNING id, api_key_id, hold_id, operation, engine, request_id, ${JOB_INPUT_UPLOAD} AS input_upload_id
           ), ${settleHoldCtes('released', sql`(SELECT hold_id FROM job)`, usage?.metering ?? null)},
           ${usageEventCte(values, sql`hold h, job j`, recorded)}, ${raw(jobEventCte('job', 'failed'))}
           SELECT (SELECT count(*) FROM job)::int AS failed, (SELECT count(*) FROM key)::int AS keys,
                  (SELECT count(*) FROM usage)::int AS usage, ${EVENT_IDS}`,
    ),
  );
  return rows[0];
}

export type CancelledRow = JobRow & { events: string[] | null };

/** Cancels a key's job still `submitted` (its provider not yet called): its hold released. */
export async function cancelSubmittedJob(db: SqlDb, apiKeyId: string, jobId: string): Promise<CancelledRow | undefined> {
  const { rows } = await db.pool.query<CancelledRow>(
    prepared(
      'wgs-job-cancel-submitted',
      sql`WITH job AS (
             UPDATE jobs SET status = 'cancelled', updated_at = now()
              WHERE id = ${jobId}::text AND api_key_id = ${apiKeyId}::uuid AND status = 'submitted'
             RETURNING *
           ), ${settleHoldCtes('released', sql`(SELECT hold_id FROM job)`)}, ${raw(jobEventCte('job', 'cancelled'))}
           SELECT job.*, ${EVENT_IDS} FROM job`,
    ),
  );
  return rows[0];
}

/** What a job cancelled while running records: its units, charged, as a usage event `job_cancelled`. */
const CANCELLED_RUN: Record<UsageEventColumn, Sql> = {
  id: sql`gen_random_uuid()`,
  api_key_id: sql`h.api_key_id`,
  package_version_id: sql`(SELECT package_version_id FROM api_keys WHERE id = h.api_key_id)`,
  operation: sql`j.operation`,
  engine: sql`j.engine`,
  outcome: sql`'succeeded'`,
  units: sql`h.units`,
  error_code: sql`'job_cancelled'`,
  request_id: sql`j.request_id`,
  hold_id: sql`h.id`,
  job_id: sql`j.id`,
  input_upload_id: sql`j.${JOB_INPUT_UPLOAD}`,
  duration_ms: sql`(extract(epoch FROM now() - j.created_at) * 1000)::int`,
  engines_tried: JOB_ENGINE_LIST,
  surface: sql`h.surface`,
};

/**
 * What a job cancelled while running cost its provider, which no provider reports: its expected cost
 * (its hold's, else its engine's recent jobs'), as an estimate; unpriced when its engine has no history yet.
 */
const CANCELLED_RUN_METERING = sql`(SELECT jsonb_build_object('provider_cost', c.cost, 'unpriced', c.cost IS NULL, 'usage_estimated', true)
               FROM (SELECT COALESCE((SELECT expected_cost FROM hold), ${recentJobCostSql(sql`(SELECT engine FROM job)`)}) AS cost) c)`;

/** Cancels a key's job still `running` (its provider already at work): its hold captured, its expected cost counted as the day's. */
export async function cancelRunningJob(db: SqlDb, apiKeyId: string, jobId: string): Promise<CancelledRow | undefined> {
  const { rows } = await db.pool.query<CancelledRow>(
    prepared(
      'wgs-job-cancel-running',
      sql`WITH job AS (
             UPDATE jobs SET status = 'cancelled', charged_on_cancel = true, updated_at = now()
              WHERE id = ${jobId}::text AND api_key_id = ${apiKeyId}::uuid AND status = 'running'
             RETURNING *
           ), ${settleHoldCtes('captured', sql`(SELECT hold_id FROM job)`, CANCELLED_RUN_METERING)},
           ${usageEventCte(CANCELLED_RUN, sql`hold h, job j`)},
           ${raw(jobEventCte('job', 'cancelled'))}
           SELECT job.*, ${EVENT_IDS} FROM job`,
    ),
  );
  return rows[0];
}
