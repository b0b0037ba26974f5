import { randomBytes } from 'node:crypto';
import type pg from 'pg';
import type { SqlDb } from '../../db/client';
import type { JobStatus } from '../../contract/values';
import { engineNamesOf } from '../packages/engine-names';

// The `jobs` rows: submission (on the submitting request's transaction), look-ups and attempts.
// Their settlement (success, failure, orphans) is job-settlement.ts.

export type { JobStatus };

export interface JobInput {
  prompt: string;
  /** uploadId: absent in jobs queued before jobs recorded the upload they consume. */
  inputUpload?: { uploadId?: string; storageKey: string; mimeType: string } | null;
}

export interface JobRow {
  id: string;
  api_key_id: string;
  operation: string;
  status: JobStatus;
  input: JobInput;
  engine: string;
  /** The package's engine list (empty on jobs from before fallbacks: `engine` alone). */
  engines: string[];
  units: number;
  hold_id: string | null;
  request_id: string;
  attempts: number;
  result_key: string | null;
  result_mime_type: string | null;
  error_code: string | null;
  error_message: string | null;
  /** Cancelled while running: charged, not returned. */
  charged_on_cancel: boolean;
  created_at: Date;
  updated_at: Date;
}

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
  await client.query({
    name: 'wgs-job-insert',
    text: `INSERT INTO jobs (id, api_key_id, operation, status, input, engine, engines, units, hold_id, request_id, attempts, created_at, updated_at)
           VALUES ($1, $2, $3, 'submitted', $4, $5, $10::text[], $6, $7, $8, 0, $9, $9)`,
    values: [
      job.id,
      job.apiKeyId,
      job.operation,
      JSON.stringify(job.input),
      engineNamesOf(job.engine)[0],
      job.units,
      job.holdId,
      job.requestId,
      job.createdAt,
      engineNamesOf(job.engine),
    ],
  });
}

/** Stores the 202 for replay, on the caller's transaction. False when the key is no longer this request's. */
export async function completeIdempotencyOn(client: pg.PoolClient, recordId: string, status: number, body: string): Promise<boolean> {
  const result = await client.query({
    name: 'wgs-job-idempotency-complete',
    text: `UPDATE idempotency_records SET status = 'completed', response_status = $2, response_body = $3
            WHERE id = $1 AND status = 'running'`,
    values: [recordId, status, body],
  });
  return result.rowCount === 1;
}

export async function findJob(db: SqlDb, jobId: string): Promise<JobRow | null> {
  const { rows } = await db.pool.query<JobRow>({
    name: 'wgs-job-find',
    text: 'SELECT * FROM jobs WHERE id = $1',
    values: [jobId],
  });
  return rows[0] ?? null;
}

/** Marks a job running for a new attempt; null when it already finished (nothing left to do). */
export async function startJobAttempt(db: SqlDb, jobId: string): Promise<JobRow | null> {
  const { rows } = await db.pool.query<JobRow>({
    name: 'wgs-job-start',
    text: `UPDATE jobs SET status = 'running', attempts = attempts + 1, updated_at = now()
            WHERE id = $1 AND status IN ('submitted', 'running')
           RETURNING *`,
    values: [jobId],
  });
  return rows[0] ?? null;
}

/** The package version a job's key is locked to (for its usage events). */
export async function packageVersionOfKey(db: SqlDb, apiKeyId: string): Promise<string> {
  const { rows } = await db.pool.query<{ package_version_id: string }>({
    name: 'wgs-job-key-version',
    text: 'SELECT package_version_id FROM api_keys WHERE id = $1',
    values: [apiKeyId],
  });
  if (!rows[0]) throw new Error(`api key ${apiKeyId} not found`);
  return rows[0].package_version_id;
}
