import { expect } from 'vitest';
import { getPool } from '@/server/db/client';
import { serveSignedObject } from '@/server/http/serve-signed-object';
import { api, call, type CallResult } from '../../../helpers/api';
import { pollUntil } from './poll';

// Video jobs as a client sees them, in-process: submit, read the job until it settles, fetch the
// signed result; and what the database holds for a key (its holds and usage events).

export const VIDEOS_PATH = '/v1/videos/generate';

export const submitVideo = (key: string, body: unknown, idempotencyKey?: string) => call(api, VIDEOS_PATH, body, { key, idempotencyKey });

export const getJob = (key: string | null, jobId: string) => call(api, `/v1/jobs/${jobId}`, undefined, { key });

export async function waitForStatus(key: string, jobId: string, statuses: string[]): Promise<CallResult> {
  return pollUntil(`job ${jobId} to reach ${statuses.join('/')}`, async () => {
    const result = await getJob(key, jobId);
    expect(result.status, result.text).toBe(200);
    return statuses.includes(result.json.status) ? result : undefined;
  });
}

export async function download(url: string): Promise<{ status: number; type: string | null; bytes: Buffer }> {
  const response = await serveSignedObject(new Request(url));
  return { status: response.status, type: response.headers.get('content-type'), bytes: Buffer.from(await response.arrayBuffer()) };
}

export async function holdsOf(keyId: string) {
  const { rows } = await getPool().query<{ status: string; units: number; counts_in_flight: boolean }>(
    'SELECT status, units, counts_in_flight FROM unit_holds WHERE api_key_id = $1',
    [keyId],
  );
  return rows;
}

export async function usageOf(keyId: string) {
  const { rows } = await getPool().query<{ outcome: string; units: number; job_id: string | null; error_code: string | null }>(
    'SELECT outcome, units, job_id, error_code FROM usage_events WHERE api_key_id = $1',
    [keyId],
  );
  return rows;
}

/** Short queue settings, so a test's jobs are picked up and retried quickly; set before the config is read. */
export function setQuickJobQueue(): void {
  process.env.JOB_HEARTBEAT_SECONDS = '10';
  process.env.JOB_SUPERVISE_INTERVAL_SECONDS = '2';
  process.env.JOB_POLL_INTERVAL_SECONDS = '0.5';
  process.env.JOB_RETRY_DELAY_SECONDS = '1';
  process.env.JOB_RETRY_LIMIT = '1';
}
