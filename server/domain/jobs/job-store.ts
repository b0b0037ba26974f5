import sql from 'sql-template-tag';
import { prepared } from '../../db/named-statement';
import { randomBytes } from 'node:crypto';
import type pg from 'pg';
import type { SqlDb } from '../../db/client';
import type { JobInput, JobRow } from '../job-row';
import { engineNamesOf } from '../engine-names';

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

/** Marks a job running for a new attempt; null when it already finished (nothing left to do). */
export async function startJobAttempt(db: SqlDb, jobId: string): Promise<JobRow | null> {
  const { rows } = await db.pool.query<JobRow>(
    prepared(
      'wgs-job-start',
      sql`UPDATE jobs SET status = 'running', attempts = attempts + 1, updated_at = now()
            WHERE id = ${jobId} AND status IN ('submitted', 'running')
           RETURNING *`,
    ),
  );
  return rows[0] ?? null;
}

/** The package version a job's key is locked to (for its usage events). */
export async function packageVersionOfKey(db: SqlDb, apiKeyId: string): Promise<string> {
  const { rows } = await db.pool.query<{ package_version_id: string }>(
    prepared('wgs-job-key-version', sql`SELECT package_version_id FROM api_keys WHERE id = ${apiKeyId}`),
  );
  if (!rows[0]) throw new Error(`api key ${apiKeyId} not found`);
  return rows[0].package_version_id;
}
