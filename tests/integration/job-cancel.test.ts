import { randomBytes, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jobSchema } from '@/server/contract/jobs-and-uploads';
import { resetConfigForTests } from '@/server/config';
import { getPool, getSqlDb } from '@/server/db/client';
import { stopJobQueue } from '@/server/domain/queue/job-queue';
import { succeedJob } from '@/server/domain/jobs/job-settlement';
import { packageVersionOfKey, startJobAttempt } from '@/server/domain/jobs/job-store';
import { startWorker, type RunningWorker } from '@/server/jobs/worker';
import { renderVideo } from '@/server/providers/local/video';
import { getObjectStore } from '@/server/storage/get-object-store';
import { currentMetrics, enableMetrics } from '@/server/observability/metrics';
import { parsePrometheusText, sampleValue } from '../helpers/prometheus-text';
import { api, call, createTestKey, expectEnvelope, newIdempotencyKey, remainingUnits, type TestKey } from '../helpers/api';
import { startFakeVideoProvider, type FakeVideoProvider } from './support/jobs/fake-video-provider';
import { getJob, holdsOf, setQuickJobQueue, submitVideo, usageOf } from './support/jobs/job-calls';
import { pollUntil } from './support/jobs/poll';

// POST /v1/jobs/{jobId}/cancel: a submitted job's units returned at once, a running job charged
// (its provider was at work), 409 on an ended job, 404 as for GET, a running attempt stopped
// between the provider's polls, and a cancel racing the job's completion ordered by PostgreSQL's
// row lock (not by timing): exactly one outcome. Each SDK protocol's cancel: job-cancel-providers.test.ts.
process.env.PROVIDER_MAX_RETRIES = '0';
process.env.JOB_CANCEL_CHECK_SECONDS = '0.2';
setQuickJobQueue();
resetConfigForTests();

const cancel = (key: string | null, jobId: string, body: unknown = {}, idempotencyKey?: string) =>
  call(api, `/v1/jobs/${jobId}/cancel`, body, { key, idempotencyKey });

const videos = (engine: unknown = 'local') => ({ 'videos.generate': { engine, units: 20, input_uploads: false } });

async function submitted(key: TestKey): Promise<string> {
  const result = await submitVideo(key.key, { prompt: 'a kite over a beach' });
  expect(result.status, result.text).toBe(202);
  return result.json.job_id as string;
}

afterAll(async () => {
  await stopJobQueue();
});

describe('POST /v1/jobs/{jobId}/cancel (no worker running: jobs stay submitted)', () => {
  it('cancels a submitted job: 200 cancelled Job, units returned at once, replayed for the same key, 409 after', async () => {
    const owner = await createTestKey({ quota: 100, operations: videos() });
    const jobId = await submitted(owner);
    expect(await remainingUnits(owner.id)).toBe(80);

    const idem = newIdempotencyKey();
    const first = await cancel(owner.key, jobId, {}, idem);
    expect(first.status, first.text).toBe(200);
    const job = jobSchema.parse(first.json);
    expect(job).toMatchObject({ job_id: jobId, status: 'cancelled', result: null, error: null, usage: { charged_units: 0 } });
    expect(first.headers.get('ratelimit-limit')).toBe('10000');
    expect(await remainingUnits(owner.id)).toBe(100);
    expect(await holdsOf(owner.id)).toEqual([{ status: 'released', units: 20, counts_in_flight: false }]);
    expect(await usageOf(owner.id)).toEqual([]);
    expect(jobSchema.parse((await getJob(owner.key, jobId)).json).status).toBe('cancelled');

    const replay = await cancel(owner.key, jobId, {}, idem);
    expect(replay.status).toBe(200);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.json).toEqual(first.json);

    const again = await cancel(owner.key, jobId);
    expectEnvelope(again, 409, 'job_not_cancellable');
    expect(again.json.error.details).toEqual({ status: 'cancelled' });
    expect(again.headers.get('ratelimit-limit')).toBe('10000'); // it took a point, as the first cancel did
    expect(await remainingUnits(owner.id)).toBe(100);
  });

  it('refuses what the pipeline refuses: 401, 404 for another key or an unknown id, 422 for any field, 400 without Idempotency-Key, 415', async () => {
    const owner = await createTestKey({ quota: 100, operations: videos() });
    const jobId = await submitted(owner);
    const stranger = await createTestKey({ operations: videos() });
    const textOnly = await createTestKey();

    expectEnvelope(await cancel(null, jobId), 401, 'invalid_api_key');
    expectEnvelope(await cancel(stranger.key, jobId), 404, 'not_found');
    expectEnvelope(await cancel(textOnly.key, jobId), 404, 'not_found');
    expectEnvelope(await cancel(owner.key, `job_${randomBytes(18).toString('base64url')}`), 404, 'not_found');
    expectEnvelope(await cancel(owner.key, 'job_short'), 404, 'not_found');
    const extra = await cancel(owner.key, jobId, { reason: 'changed my mind' });
    expectEnvelope(extra, 422, 'validation_error');
    expectEnvelope(
      await call(api, `/v1/jobs/${jobId}/cancel`, {}, { key: owner.key, idempotencyKey: null }),
      400,
      'missing_idempotency_key',
    );
    expectEnvelope(
      await call(api, `/v1/jobs/${jobId}/cancel`, {}, { key: owner.key, contentType: 'text/plain' }),
      415,
      'unsupported_media_type',
    );
    const get = await call(api, `/v1/jobs/${jobId}/cancel`, undefined, { key: owner.key });
    expectEnvelope(get, 405, 'method_not_allowed');
    expect(get.headers.get('allow')).toBe('POST');
    // Nothing of that touched the job or its units.
    expect(jobSchema.parse((await getJob(owner.key, jobId)).json).status).toBe('submitted');
    expect(await remainingUnits(owner.id)).toBe(80);
  });

  it('counts against the rate limit like every request', async () => {
    const owner = await createTestKey({ quota: 100, rpm: 2, operations: videos() });
    const jobId = await submitted(owner); // the minute's first request
    expect((await cancel(owner.key, jobId)).status).toBe(200);
    expectEnvelope(await cancel(owner.key, jobId), 429, 'rate_limited');
  });
});

/** The backends waiting for a row lock whose query contains `marker`. */
async function waitingOn(marker: string): Promise<number> {
  const { rows } = await getPool().query<{ n: number }>(
    `SELECT count(*)::int AS n FROM pg_stat_activity
      WHERE wait_event_type = 'Lock' AND pid <> pg_backend_pid() AND position($1 in query) > 0`,
    [marker],
  );
  return rows[0]!.n;
}

const CANCEL_MARKER = `SET status = 'cancelled'`;
const SUCCEED_MARKER = `FOR UPDATE
           ), hold AS (
             UPDATE unit_holds SET status = 'captured'`;

/**
 * Runs a cancel and the worker's success of the same job with the job's row locked by a third
 * transaction, starts them in the given order (each waiting on the lock before the next starts),
 * then lets them go: PostgreSQL hands the row to the first waiter.
 */
async function race(key: TestKey, jobId: string, first: 'cancel' | 'succeed') {
  const running = (await startJobAttempt(getSqlDb(), jobId))!;
  const usage = { usageEventId: randomUUID(), packageVersionId: await packageVersionOfKey(getSqlDb(), key.id), durationMs: 1 };
  const locker = await getPool().connect();
  try {
    await locker.query('BEGIN');
    await locker.query('SELECT id FROM jobs WHERE id = $1 FOR UPDATE', [jobId]);
    const startCancel = () => cancel(key.key, jobId);
    const startSucceed = () => succeedJob(getSqlDb(), running, usage, { key: `outputs/${key.id}/${jobId}.mp4`, mimeType: 'video/mp4' });
    let cancelled: ReturnType<typeof startCancel>;
    let succeeded: ReturnType<typeof startSucceed>;
    if (first === 'cancel') {
      cancelled = startCancel();
      await pollUntil('the cancel to wait on the row', async () => ((await waitingOn(CANCEL_MARKER)) === 1 ? true : undefined), 30_000, 20);
      succeeded = startSucceed();
      await pollUntil(
        'the success to wait on the row',
        async () => ((await waitingOn(SUCCEED_MARKER)) === 1 ? true : undefined),
        30_000,
        20,
      );
    } else {
      succeeded = startSucceed();
      await pollUntil(
        'the success to wait on the row',
        async () => ((await waitingOn(SUCCEED_MARKER)) === 1 ? true : undefined),
        30_000,
        20,
      );
      cancelled = startCancel();
      await pollUntil('the cancel to wait on the row', async () => ((await waitingOn(CANCEL_MARKER)) === 1 ? true : undefined), 30_000, 20);
    }
    await locker.query('COMMIT');
    return { cancel: await cancelled, succeed: await succeeded };
  } finally {
    locker.release();
  }
}

describe('a cancel racing the job completion', () => {
  it('cancel first: the running job is cancelled and charged once, the late success does nothing', async () => {
    const key = await createTestKey({ quota: 100, operations: videos() });
    const jobId = await submitted(key);
    const { cancel: answer, succeed } = await race(key, jobId, 'cancel');
    expect(answer.status, answer.text).toBe(200);
    expect(answer.json.status).toBe('cancelled');
    expect(succeed).toBe('already_finished');
    expect(jobSchema.parse((await getJob(key.key, jobId)).json)).toMatchObject({ status: 'cancelled', usage: { charged_units: 20 } });
    expect(await remainingUnits(key.id)).toBe(80);
    expect(await holdsOf(key.id)).toEqual([{ status: 'captured', units: 20, counts_in_flight: false }]);
    expect(await usageOf(key.id)).toEqual([{ outcome: 'succeeded', units: 20, job_id: jobId, error_code: 'job_cancelled' }]);
  });

  it('success first: the job succeeded and is charged once, the cancel is 409 job_not_cancellable with the status', async () => {
    const key = await createTestKey({ quota: 100, operations: videos() });
    const jobId = await submitted(key);
    const { cancel: answer, succeed } = await race(key, jobId, 'succeed');
    expect(succeed).toBe('succeeded');
    expectEnvelope(answer, 409, 'job_not_cancellable');
    expect(answer.json.error.details).toEqual({ status: 'succeeded' });
    expect(answer.headers.get('retry-after')).toBe('1'); // CONTRACT.md §2: every 409 carries it
    expect(await remainingUnits(key.id)).toBe(80);
    expect(await holdsOf(key.id)).toEqual([{ status: 'captured', units: 20, counts_in_flight: false }]);
    expect(await usageOf(key.id)).toEqual([{ outcome: 'succeeded', units: 20, job_id: jobId, error_code: null }]);
  });
});

describe('a running job, with a worker', () => {
  let worker: RunningWorker;
  let provider: FakeVideoProvider;
  beforeAll(async () => {
    await enableMetrics();
    worker = await startWorker({ concurrency: 2 });
    // Held until release(): the first test never releases it, the second does.
    provider = await startFakeVideoProvider({ mode: 'hold', video: (await renderVideo({ prompt: 'provider stand-in' })).bytes });
  });
  afterAll(async () => {
    await worker?.stop();
    await provider?.close();
  });

  /** A job the provider is working on; `earlierCost`: what an earlier job on its engine cost (its expected cost). */
  async function runningJob(earlierCost?: string): Promise<{ key: TestKey; jobId: string }> {
    const name = `hold${randomBytes(4).toString('hex')}`;
    const key = await createTestKey({
      quota: 100,
      providers: { [name]: { type: 'openai', base_url: provider.baseUrl } },
      operations: videos(`${name}:fake-video`),
    });
    if (earlierCost) {
      await getPool().query(
        `INSERT INTO usage_events (id, api_key_id, package_version_id, operation, engine, outcome, units, request_id, job_id, duration_ms, provider_cost)
         SELECT gen_random_uuid(), id, package_version_id, 'videos.generate', $2, 'succeeded', 20, 'req_earlier', 'job_earlier', 1, $3
           FROM api_keys WHERE id = $1`,
        [key.id, `${name}:fake-video`, earlierCost],
      );
    }
    const posted = provider.requests.filter((request) => request === 'POST /v1/videos').length;
    const jobId = await submitted(key);
    await pollUntil('the worker to submit the video to the provider', async () =>
      (await getJob(key.key, jobId)).json.status === 'running' &&
      provider.requests.filter((request) => request === 'POST /v1/videos').length > posted
        ? true
        : undefined,
    );
    return { key, jobId };
  }

  /** The provider cost a charged cancel recorded, and the key's day's cost. */
  const cancelCost = async (apiKeyId: string) =>
    (
      await getPool().query(
        `SELECT e.provider_cost::float8::text AS provider_cost, e.unpriced, e.usage_estimated, k.cost_today::float8::text AS cost_today
           FROM usage_events e JOIN api_keys k ON k.id = e.api_key_id
          WHERE e.api_key_id = $1 AND e.error_code = 'job_cancelled'`,
        [apiKeyId],
      )
    ).rows[0];

  const attemptEnded = (jobId: string) =>
    pollUntil('the attempt to end', async () => {
      const { rows } = await getPool().query<{ state: string; output: { outcome?: string } | null }>(
        `SELECT state, output FROM pgboss.job WHERE name = 'videos-generate' AND data->>'jobId' = $1`,
        [jobId],
      );
      return rows[0]?.state === 'completed' ? rows[0] : undefined;
    });

  it('a running job: charged, the provider no longer polled (OpenAI videos have no cancel), the attempt ends cancelled', async () => {
    const { key, jobId } = await runningJob();
    const answer = await cancel(key.key, jobId);
    expect(answer.status, answer.text).toBe(200);
    expect(jobSchema.parse(answer.json)).toMatchObject({ status: 'cancelled', usage: { charged_units: 20 } });
    expect(await remainingUnits(key.id)).toBe(80);

    // The provider never finishes: only the worker's look at the job can end the attempt.
    const attempt = await attemptEnded(jobId);
    expect(attempt.output).toEqual({ outcome: 'cancelled' });
    expect(jobSchema.parse((await getJob(key.key, jobId)).json).status).toBe('cancelled');
    expect(await holdsOf(key.id)).toEqual([{ status: 'captured', units: 20, counts_in_flight: false }]);
    expect(await usageOf(key.id)).toEqual([{ outcome: 'succeeded', units: 20, job_id: jobId, error_code: 'job_cancelled' }]);
    expect(provider.requests.some((request) => request.endsWith('/content'))).toBe(false);
    expect(provider.requests.filter((request) => !request.startsWith('GET ') && request !== 'POST /v1/videos')).toEqual([]);
    // Its engine has no charged job yet: no cost can be estimated, and the event says so (never a silent nothing).
    expect(await cancelCost(key.id)).toEqual({ provider_cost: null, unpriced: true, usage_estimated: true, cost_today: '0' });
    // The provider call it stopped is `cancelled` in the metrics, not the provider's error (outside audit).
    const engine = (await getPool().query<{ engine: string }>('SELECT engine FROM jobs WHERE id = $1', [jobId])).rows[0]!.engine;
    const exposition = parsePrometheusText(await currentMetrics()!.registry.metrics());
    const calls = (outcome: string) =>
      sampleValue(exposition, 'wgs_provider_call_duration_seconds_count', {
        provider: engine.slice(0, engine.indexOf(':')),
        model: 'fake-video',
        outcome,
      });
    expect([calls('cancelled'), calls('error')]).toEqual([1, undefined]);
  });

  it("a running job's cancel adds its expected cost (its engine's recent jobs) to the key's day, as an estimate", async () => {
    const { key, jobId } = await runningJob('0.25');
    const answer = await cancel(key.key, jobId);
    expect(answer.status, answer.text).toBe(200);
    expect(await cancelCost(key.id)).toEqual({ provider_cost: '0.25', unpriced: false, usage_estimated: true, cost_today: '0.25' });
    await attemptEnded(jobId);
  });

  it('discards a result that arrives as the running job is cancelled: charged once by the cancel, the stored video deleted', async () => {
    const { key, jobId } = await runningJob();
    const locker = await getPool().connect();
    let answer;
    try {
      await locker.query('BEGIN');
      await locker.query('SELECT id FROM jobs WHERE id = $1 FOR UPDATE', [jobId]);
      const cancelled = cancel(key.key, jobId);
      await pollUntil('the cancel to wait on the row', async () => ((await waitingOn(CANCEL_MARKER)) === 1 ? true : undefined), 30_000, 20);
      // The provider finishes: the worker downloads and stores the video, then waits behind the cancel to charge it.
      provider.release();
      await pollUntil(
        'the success to wait on the row',
        async () => ((await waitingOn(SUCCEED_MARKER)) === 1 ? true : undefined),
        60_000,
        20,
      );
      await locker.query('COMMIT');
      answer = await cancelled;
    } finally {
      locker.release();
    }
    expect(answer.status, answer.text).toBe(200);
    expect((await attemptEnded(jobId)).output).toEqual({ outcome: 'cancelled' });
    expect(jobSchema.parse((await getJob(key.key, jobId)).json)).toMatchObject({ status: 'cancelled', result: null });
    expect(await getObjectStore().get(`outputs/${key.id}/${jobId}.mp4`)).toBeNull();
    expect(await remainingUnits(key.id)).toBe(80);
    expect(await holdsOf(key.id)).toEqual([{ status: 'captured', units: 20, counts_in_flight: false }]);
    expect(await usageOf(key.id)).toEqual([{ outcome: 'succeeded', units: 20, job_id: jobId, error_code: 'job_cancelled' }]);
  });
});
