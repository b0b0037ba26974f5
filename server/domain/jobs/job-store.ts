import sql, { type Sql } from 'sql-template-tag';
import { prepared } from '../../db/named-statement';
import { randomBytes } from 'node:crypto';
import type pg from 'pg';
import type { SqlDb } from '../../db/client';
import type { JobInput, JobRow } from '../job-row';
import { engineNamesOf } from '../engine-names';
import { usageEventCte, type UsageEventColumn } from '../billing/settlement-sql';
import { REQUEST_LOST } from '../billing/sweep-expired-holds';
import { JOB_ENGINE_LIST, JOB_INPUT_UPLOAD } from '../billing/job-holds';

// The `jobs` rows: submission (on the submitting request's transaction), look-ups and attempts.
// Their settlement (success, failure, orphans) is job-settlement.ts; their shape is ../job-row.ts.

/** `job_` + 24 url-safe random characters (CONTRACT.md §5). */
export function newJobId(): string {
  return `job_${randomBytes(18).toString('base64url')}`;
}

export interface NewJob {
  id: string;
  apiKeyId: string;
  operation: string;
  input: JobInput;
  /** The package's engine setting: one name or its ordered fallbacks. */
  engine: string | readonly string[];
  units: number;
  holdId: string;
  requestId: string;
  createdAt: Date;
}

/** Inserts the row of a submitted job on the caller's transaction. */
export async function insertJob(client: pg.PoolClient, job: NewJob): Promise<void> {
  const engines = engineNamesOf(job.engine);
  await client.query(
    prepared(
      'wgs-job-insert',
      sql`INSERT INTO jobs (id, api_key_id, operation, status, input, engine, engines, units, hold_id, request_id, attempts, created_at, updated_at)
           VALUES (${job.id}, ${job.apiKeyId}, ${job.operation}, 'submitted', ${JSON.stringify(job.input)}, ${engines[0]}, ${engines}::text[], ${job.units}, ${job.holdId}, ${job.requestId}, 0, ${job.createdAt}, ${job.createdAt})`,
    ),
  );
}

export async function findJob(db: SqlDb, jobId: string): Promise<JobRow | null> {
  const { rows } = await db.pool.query<JobRow>(prepared('wgs-job-find', sql`SELECT * FROM jobs WHERE id = ${jobId}`));
  return rows[0] ?? null;
}

/** What the attempt before records when a new one finds its job still running: it died (0 units, `request_lost`). */
const LOST_ATTEMPT: Record<UsageEventColumn, Sql> = {
  id: sql`gen_random_uuid()`,
  api_key_id: sql`j.api_key_id`,
  package_version_id: sql`k.package_version_id`,
  operation: sql`j.operation`,
  engine: sql`j.engine`,
  outcome: sql`'failed'`,
  units: sql`0`,
  error_code: sql`${REQUEST_LOST}::text`,
  request_id: sql`j.request_id`,
  hold_id: sql`NULL`, // the hold's own event is the job's end
  job_id: sql`j.id`,
  input_upload_id: sql`j.${JOB_INPUT_UPLOAD}`,
  duration_ms: sql`0`, // how long it ran died with it
  // Which of them it reached died with its worker, as for a request's lost hold.
  engines_tried: JOB_ENGINE_LIST,
  surface: sql`COALESCE(h.surface, 'v1')`,
};

/**
 * Marks a job running for a new attempt; null when it already finished (nothing left to do). A
 * job found running whose attempt reached its engine had that attempt never finish (its worker
 * died, or its result was never settled): the provider may have run it, so it is recorded, in the
 * same statement.
 */
export async function startJobAttempt(db: SqlDb, jobId: string): Promise<JobRow | null> {
  const { rows } = await db.pool.query<JobRow & { lost_attempt: boolean }>(
    prepared(
      'wgs-job-start',
      sql`WITH before AS (
             SELECT id, (status = 'running' AND engine_attempt = attempts) AS lost_attempt
               FROM jobs WHERE id = ${jobId} AND status IN ('submitted', 'running') FOR UPDATE
           ), job AS (
             UPDATE jobs j SET status = 'running', attempts = j.attempts + 1, updated_at = now()
               FROM before b WHERE j.id = b.id
             RETURNING j.*, b.lost_attempt
           ), ${usageEventCte(
             LOST_ATTEMPT,
             sql`job j JOIN api_keys k ON k.id = j.api_key_id LEFT JOIN unit_holds h ON h.id = j.hold_id`,
             sql`j.lost_attempt`,
             sql`LATERAL (SELECT NULL::jsonb AS doc) m`,
           )}
           SELECT j.* FROM job j`,
    ),
  );
  if (!rows[0]) return null;
  const { lost_attempt: _, ...job } = rows[0];
  return job;
}

/** The attempt is about to call its engine: should it never finish, the next one records the call (above). */
export async function markEngineReached(db: SqlDb, job: Pick<JobRow, 'id' | 'attempts'>): Promise<void> {
  await db.pool.query(
    prepared(
      'wgs-job-engine-reached',
      sql`UPDATE jobs SET engine_attempt = attempts WHERE id = ${job.id} AND status = 'running' AND attempts = ${job.attempts}`,
    ),
  );
}

/** The package version a job's key is locked to (for its usage events). */
export async function packageVersionOfKey(db: SqlDb, apiKeyId: string): Promise<string> {
  const { rows } = await db.pool.query<{ package_version_id: string }>(
    prepared('wgs-job-key-version', sql`SELECT package_version_id FROM api_keys WHERE id = ${apiKeyId}`),
  );
  if (!rows[0]) throw new Error(`api key ${apiKeyId} not found`);
  return rows[0].package_version_id;
}
