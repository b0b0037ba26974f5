import { createHash, randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { jobSchema } from '@/server/contract/jobs-and-uploads';
import { resetConfigForTests } from '@/server/config';
import { getPool, getPrisma } from '@/server/db/client';
import { stopJobQueue } from '@/server/domain/queue/job-queue';
import { runBackgroundTasksOnce } from '@/server/instance/background';
import { startWorker, type RunningWorker } from '@/server/jobs/worker';
import { renderImage } from '@/server/providers/local/image';
import { getObjectStore } from '@/server/storage/get-object-store';
import { api, call, createTestKey, expectEnvelope, newIdempotencyKey, remainingUnits, type TestKey } from '../helpers/api';
import { startFakeVideoProvider, type FakeVideoProvider } from './support/jobs/fake-video-provider';
import {
  download,
  getJob,
  holdsOf,
  setQuickJobQueue,
  submitVideo as submit,
  usageOf,
  VIDEOS_PATH,
  waitForStatus,
} from './support/jobs/job-calls';
import { probeVideo } from './support/jobs/video-probe';

// Video jobs end to end, in-process: the route handlers as Next calls them, and a real
// pg-boss worker on the test database. Short queue settings so retries are quick.
process.env.PROVIDER_MAX_RETRIES = '0';
setQuickJobQueue();
resetConfigForTests();

/** The upload each of the key's usage events records as consumed. */
async function uploadsConsumedBy(keyId: string) {
  const { rows } = await getPool().query<{ input_upload_id: string | null }>(
    'SELECT input_upload_id FROM usage_events WHERE api_key_id = $1',
    [keyId],
  );
  return rows.map((row) => row.input_upload_id);
}

const localVideos = (extra: Record<string, unknown> = {}) => ({
  'videos.generate': { engine: 'local', units: 20, input_uploads: false, ...extra },
});

let worker: RunningWorker;
let failing: FakeVideoProvider;

beforeAll(async () => {
  worker = await startWorker({ concurrency: 2 });
  failing = await startFakeVideoProvider({ mode: 'fail' });
});

afterAll(async () => {
  await worker?.stop();
  await stopJobQueue();
  await failing?.close();
});

describe('POST /v1/videos/generate and GET /v1/jobs/{jobId}', () => {
  let owner: TestKey;
  beforeAll(async () => {
    owner = await createTestKey({ quota: 100, operations: localVideos() });
  });

  it('answers 202 with a submitted Job, runs it to succeeded and serves a real H.264 MP4', async () => {
    const submitted = await submit(owner.key, { prompt: 'a red fox crossing a snowy field' });
    expect(submitted.status, submitted.text).toBe(202);
    const job = jobSchema.parse(submitted.json);
    expect(job).toMatchObject({
      object: 'job',
      operation: 'videos.generate',
      status: 'submitted',
      result: null,
      error: null,
      usage: { charged_units: 20 },
    });
    expect(submitted.headers.get('x-request-id')).toMatch(/^req_/);
    // Units are held at submission; the hold no longer counts as an in-flight request.
    expect(await remainingUnits(owner.id)).toBe(80);

    const done = await waitForStatus(owner.key, job.job_id, ['succeeded', 'failed']);
    const view = jobSchema.parse(done.json);
    expect(view.status, done.text).toBe('succeeded');
    expect(view.error).toBeNull();
    expect(view.usage.charged_units).toBe(20);
    expect(view.created_at).toBe(job.created_at);
    expect(Date.parse(view.updated_at)).toBeGreaterThanOrEqual(Date.parse(view.created_at));
    expect(view.result!.mime_type).toBe('video/mp4');
    expect(Date.parse(view.result!.expires_at)).toBeGreaterThan(Date.now());

    const file = await download(view.result!.url);
    expect(file.status).toBe(200);
    expect(file.type).toBe('video/mp4');
    const probe = probeVideo(file.bytes);
    expect(probe.container).toContain('mp4');
    expect(probe.codec).toBe('h264');
    expect(probe.errors).toBe('');
    expect(probe.decodedFrames).toBeGreaterThan(0);

    // Charged exactly once: one captured hold, one succeeded usage event for the job.
    expect(await remainingUnits(owner.id)).toBe(80);
    expect(await holdsOf(owner.id)).toEqual([{ status: 'captured', units: 20, counts_in_flight: false }]);
    expect(await usageOf(owner.id)).toEqual([{ outcome: 'succeeded', units: 20, job_id: job.job_id, error_code: null }]);
    const row = await getPrisma().job.findUniqueOrThrow({ where: { id: job.job_id } });
    expect(row).toMatchObject({ status: 'succeeded', attempts: 1, resultKey: `outputs/${job.job_id}.mp4` });
    const key = await getPrisma().apiKey.findUniqueOrThrow({ where: { id: owner.id } });
    expect(key.inFlight).toBe(0);

    // Every read signs the URL again, and each signed URL serves the file.
    const again = jobSchema.parse((await getJob(owner.key, job.job_id)).json);
    expect((await download(again.result!.url)).bytes.equals(file.bytes)).toBe(true);
    expect(again.result!.url).toContain(`/files/outputs/${job.job_id}.mp4?`);
    // Fresh on each read, even two reads within the same second.
    expect(again.result!.url).not.toBe(view.result!.url);
  });

  it('gives 404 to another key, for unknown ids and for malformed ids; 401 without a valid key', async () => {
    const submitted = await submit(owner.key, { prompt: 'a lighthouse at dusk' });
    expect(submitted.status, submitted.text).toBe(202);
    const jobId = submitted.json.job_id as string;
    const stranger = await createTestKey({ operations: localVideos() });

    expectEnvelope(await getJob(stranger.key, jobId), 404, 'not_found');
    expectEnvelope(await getJob(owner.key, `job_${randomBytes(18).toString('base64url')}`), 404, 'not_found');
    expectEnvelope(await getJob(owner.key, 'job_short'), 404, 'not_found');
    expectEnvelope(await getJob(owner.key, 'upl_abcdefghijklmnopqrstuvwx'), 404, 'not_found');
    expectEnvelope(await getJob(null, jobId), 401, 'invalid_api_key');
    expectEnvelope(await getJob('wgs_live_notarealkeynotarealkeynotarealkey12', jobId), 401, 'invalid_api_key');
    // A key for another operation still reads its own jobs only: GET is open to any active key.
    const textOnly = await createTestKey();
    expectEnvelope(await getJob(textOnly.key, jobId), 404, 'not_found');
    // No idempotency key is needed on GET, and POST is not a method of the route.
    const post = await call(api, `/v1/jobs/${jobId}`, {}, { key: owner.key });
    expectEnvelope(post, 405, 'method_not_allowed');
    expect(post.headers.get('allow')).toBe('GET, HEAD');

    await waitForStatus(owner.key, jobId, ['succeeded', 'failed']);
  });

  it('replays the same job for a retried submission with the same Idempotency-Key: one job, units held once', async () => {
    const key = await createTestKey({ quota: 50, operations: localVideos() });
    const idem = newIdempotencyKey();
    const first = await submit(key.key, { prompt: 'waves on a pier' }, idem);
    const second = await submit(key.key, { prompt: 'waves on a pier' }, idem);
    expect(first.status, first.text).toBe(202);
    expect(second.status, second.text).toBe(202);
    expect(second.json.job_id).toBe(first.json.job_id);
    expect(second.headers.get('idempotent-replayed')).toBe('true');
    expect(await getPrisma().job.count({ where: { apiKeyId: key.id } })).toBe(1);
    expect(await remainingUnits(key.id)).toBe(30);
    // The same key with another body is refused.
    expectEnvelope(await submit(key.key, { prompt: 'something else' }, idem), 422, 'idempotency_key_reused');

    await waitForStatus(key.key, first.json.job_id, ['succeeded', 'failed']);
    const third = await submit(key.key, { prompt: 'waves on a pier' }, idem);
    expect(third.json.job_id).toBe(first.json.job_id);
    expect(await getPrisma().job.count({ where: { apiKeyId: key.id } })).toBe(1);
    expect(await remainingUnits(key.id)).toBe(30);
    expect((await usageOf(key.id)).length).toBe(1);
  });

  it('fails the job with provider_unavailable when the provider fails, and returns the units', async () => {
    const provider = `fail${randomBytes(4).toString('hex')}`;
    const key = await createTestKey({
      quota: 60,
      providers: { [provider]: { type: 'openai', base_url: failing.baseUrl } },
      operations: { 'videos.generate': { engine: `${provider}:fake-video`, units: 25 } },
    });
    const submitted = await submit(key.key, { prompt: 'a storm over the sea' });
    expect(submitted.status, submitted.text).toBe(202);
    expect(await remainingUnits(key.id)).toBe(35);

    const done = await waitForStatus(key.key, submitted.json.job_id, ['succeeded', 'failed']);
    const view = jobSchema.parse(done.json);
    expect(view.status).toBe('failed');
    expect(view.error!.code).toBe('provider_unavailable');
    expect(view.error!.message).not.toContain('fake provider');
    expect(view.result).toBeNull();
    expect(view.usage.charged_units).toBe(0);
    expect(failing.requests.some((r) => r.startsWith('POST ') && r.endsWith('/videos'))).toBe(true);

    expect(await remainingUnits(key.id)).toBe(60);
    expect(await holdsOf(key.id)).toEqual([{ status: 'released', units: 25, counts_in_flight: false }]);
    expect(await usageOf(key.id)).toEqual([{ outcome: 'failed', units: 0, job_id: view.job_id, error_code: 'provider_unavailable' }]);
  });

  it('records every attempt that reached its engine and never finished (its result never stored) as a lost call, the last one too', async () => {
    const key = await createTestKey({ quota: 100, operations: localVideos() });
    const put = vi.spyOn(getObjectStore(), 'put').mockRejectedValue(new Error('the store is away'));
    let done;
    try {
      const submitted = await submit(key.key, { prompt: 'a result nobody can keep' });
      expect(submitted.status, submitted.text).toBe(202);
      done = jobSchema.parse((await waitForStatus(key.key, submitted.json.job_id, ['succeeded', 'failed'])).json);
    } finally {
      put.mockRestore();
    }
    expect([done.status, done.error?.code, done.usage.charged_units]).toEqual(['failed', 'internal_error', 0]);
    expect(await remainingUnits(key.id)).toBe(100);
    // JOB_RETRY_LIMIT=1: two attempts, each called the engine; the second's is the job's end.
    const { rows } = await getPool().query(
      `SELECT error_code, units, engines_tried, hold_id IS NOT NULL AS ends_job FROM usage_events WHERE job_id = $1 ORDER BY created_at`,
      [done.job_id],
    );
    expect(rows).toEqual([
      { error_code: 'request_lost', units: 0, engines_tried: ['local'], ends_job: false },
      { error_code: 'request_lost', units: 0, engines_tried: ['local'], ends_job: true },
    ]);
  });

  it('falls back to the next engine of the list when the provider fails: succeeded, charged once, both engines recorded', async () => {
    const provider = `fail${randomBytes(4).toString('hex')}`;
    const key = await createTestKey({
      quota: 60,
      providers: { [provider]: { type: 'openai', base_url: failing.baseUrl } },
      operations: { 'videos.generate': { engine: [`${provider}:fake-video`, 'local'], units: 25 } },
    });
    const submitted = await submit(key.key, { prompt: 'a lighthouse at dusk' });
    expect(submitted.status, submitted.text).toBe(202);
    const done = await waitForStatus(key.key, submitted.json.job_id, ['succeeded', 'failed']);
    const view = jobSchema.parse(done.json);
    expect(view.status, JSON.stringify(view.error)).toBe('succeeded');
    expect(view.usage.charged_units).toBe(25);
    expect(await remainingUnits(key.id)).toBe(35);
    const { rows: jobs } = await getPool().query('SELECT engine, engines FROM jobs WHERE id = $1', [view.job_id]);
    expect(jobs).toEqual([{ engine: `${provider}:fake-video`, engines: [`${provider}:fake-video`, 'local'] }]);
    const { rows: events } = await getPool().query(
      'SELECT outcome::text, units, engine, engines_tried FROM usage_events WHERE api_key_id = $1',
      [key.id],
    );
    expect(events).toEqual([{ outcome: 'succeeded', units: 25, engine: 'local', engines_tried: [`${provider}:fake-video`, 'local'] }]);
  });

  it('refuses invalid bodies and settings with 422 before holding any units', async () => {
    const key = await createTestKey({ quota: 40, operations: localVideos() });
    expectEnvelope(await submit(key.key, {}), 422, 'validation_error');
    expectEnvelope(await submit(key.key, { prompt: '' }), 422, 'validation_error');
    expectEnvelope(await submit(key.key, { prompt: 'x'.repeat(32_001) }), 422, 'validation_error');
    expectEnvelope(await submit(key.key, { prompt: 'ok', seconds: 4 }), 422, 'validation_error');
    expectEnvelope(await submit(key.key, { prompt: 'ok', input_upload_id: 'not-an-upload' }), 422, 'validation_error');

    const notAllowed = await submit(key.key, { prompt: 'ok', input_upload_id: `upl_${randomBytes(18).toString('base64url')}` });
    expectEnvelope(notAllowed, 422, 'validation_error');
    expect(notAllowed.json.error.details.issues).toEqual([
      expect.objectContaining({ path: 'input_upload_id', code: 'not_allowed_by_package' }),
    ]);
    expect(await remainingUnits(key.id)).toBe(40);
    expect(await getPrisma().job.count({ where: { apiKeyId: key.id } })).toBe(0);

    const textOnly = await createTestKey();
    expectEnvelope(await submit(textOnly.key, { prompt: 'ok' }), 403, 'forbidden');
    expectEnvelope(await call(api, VIDEOS_PATH, { prompt: 'ok' }, { key: key.key, idempotencyKey: null }), 400, 'missing_idempotency_key');
  });

  it('402 when the quota cannot cover the job; nothing is enqueued', async () => {
    const key = await createTestKey({ quota: 10, operations: localVideos() });
    expectEnvelope(await submit(key.key, { prompt: 'too expensive' }), 402, 'quota_exhausted');
    expect(await getPrisma().job.count({ where: { apiKeyId: key.id } })).toBe(0);
    expect(await remainingUnits(key.id)).toBe(10);
  });

  it("holds a job's units for its whole life; a job whose hold ran out anyway is failed, never charged", async () => {
    const key = await createTestKey({ quota: 100, operations: localVideos() });
    const submitted = await submit(key.key, { prompt: 'a long night' });
    expect(submitted.status, submitted.text).toBe(202);
    const lease = await getPool().query<{ seconds: number }>(
      `SELECT EXTRACT(EPOCH FROM (h.lease_until - now()))::int AS seconds FROM unit_holds h JOIN jobs j ON j.hold_id = h.id WHERE j.id = $1`,
      [submitted.json.job_id],
    );
    expect(lease.rows[0]!.seconds).toBeGreaterThan(3600);
    await waitForStatus(key.key, submitted.json.job_id, ['succeeded', 'failed']);

    // A job left open past its hold's lease (simulated: the row is reopened and the lease ended).
    const stuck = await submit(key.key, { prompt: 'stuck' });
    const jobId = stuck.json.job_id as string;
    await waitForStatus(key.key, jobId, ['succeeded', 'failed']);
    const before = await remainingUnits(key.id);
    await getPool().query(
      `UPDATE unit_holds SET status = 'held', settled_at = NULL, lease_until = now() - interval '1 second'
                            WHERE id = (SELECT hold_id FROM jobs WHERE id = $1)`,
      [jobId],
    );
    await getPool().query(`UPDATE jobs SET status = 'running' WHERE id = $1`, [jobId]);
    await getPool().query(`DELETE FROM usage_events WHERE job_id = $1`, [jobId]);
    await getPool().query(`UPDATE api_keys SET remaining_units = remaining_units - 20 WHERE id = $1`, [key.id]);
    await runBackgroundTasksOnce(); // what every instance runs, web servers included: no worker needed
    expect(await remainingUnits(key.id)).toBe(before);
    const view = jobSchema.parse((await getJob(key.key, jobId)).json);
    expect(view).toMatchObject({ status: 'failed', error: { code: 'internal_error' }, usage: { charged_units: 0 }, result: null });
  });

  describe('input uploads, where the package allows them', () => {
    async function storeUpload(
      apiKeyId: string,
      status: 'verified' | 'pending',
      purpose: 'image_input' | 'audio_input' = 'image_input',
      corrupt = false,
    ) {
      const image = await renderImage({ prompt: 'a blue square', format: 'png', width: 64, height: 64 });
      // A PNG signature and header, then noise: it passes the magic-byte check but decodes to nothing.
      if (corrupt) randomBytes(image.bytes.length - 33).copy(image.bytes, 33);
      const id = `upl_${randomBytes(18).toString('base64url')}`;
      const storageKey = `uploads/${id}`;
      await getObjectStore().put(storageKey, image.bytes, image.mimeType);
      await getPrisma().upload.create({
        data: {
          id,
          apiKeyId,
          purpose,
          filename: 'square.png',
          mimeType: image.mimeType,
          sizeBytes: image.bytes.length,
          sha256: createHash('sha256').update(image.bytes).digest('hex'),
          status,
          storageKey,
          expiresAt: new Date(Date.now() + 3_600_000),
          verifiedAt: status === 'verified' ? new Date() : null,
        },
      });
      return id;
    }

    it('an attempt that keeps failing unexpectedly is retried a bounded number of times, then failed with its units returned', async () => {
      const key = await createTestKey({ quota: 100, operations: localVideos({ input_uploads: true }) });
      const upload = await storeUpload(key.id, 'verified');
      // The stored input disappears before a worker reads it: every attempt throws (not a provider failure). Deleted
      // before the submit: after it, a worker that polled at once could read the input first, and the job succeed.
      await getObjectStore().delete(`uploads/${upload}`);
      const submitted = await submit(key.key, { prompt: 'the square fades', input_upload_id: upload });
      expect(submitted.status, submitted.text).toBe(202);

      const done = jobSchema.parse((await waitForStatus(key.key, submitted.json.job_id, ['succeeded', 'failed'])).json);
      expect(done.status).toBe('failed');
      expect(done.error).toEqual({ code: 'internal_error', message: expect.any(String) });
      expect(done.usage.charged_units).toBe(0);
      // JOB_RETRY_LIMIT=1: the first attempt and one retry, then the dead-letter handler failed it.
      expect((await getPrisma().job.findUniqueOrThrow({ where: { id: done.job_id } })).attempts).toBe(2);
      expect(await remainingUnits(key.id)).toBe(100);
      expect(await holdsOf(key.id)).toEqual([{ status: 'released', units: 20, counts_in_flight: false }]);
      expect(await usageOf(key.id)).toEqual([{ outcome: 'failed', units: 0, job_id: done.job_id, error_code: 'internal_error' }]);
      expect(await uploadsConsumedBy(key.id)).toEqual([upload]);
    });

    it('takes a verified image upload as the first frame; refuses unverified, wrong-purpose and foreign uploads', async () => {
      const key = await createTestKey({ quota: 100, operations: localVideos({ input_uploads: true }) });
      const verified = await storeUpload(key.id, 'verified');
      const submitted = await submit(key.key, { prompt: 'the square starts to spin', input_upload_id: verified });
      expect(submitted.status, submitted.text).toBe(202);
      const done = jobSchema.parse((await waitForStatus(key.key, submitted.json.job_id, ['succeeded', 'failed'])).json);
      expect(done.status).toBe('succeeded');
      expect(probeVideo((await download(done.result!.url)).bytes).codec).toBe('h264');
      expect(await uploadsConsumedBy(key.id)).toEqual([verified]);

      const pending = await storeUpload(key.id, 'pending');
      const unverified = await submit(key.key, { prompt: 'x', input_upload_id: pending });
      expectEnvelope(unverified, 422, 'validation_error');
      expect(unverified.json.error.details.issues[0]).toMatchObject({ path: 'input_upload_id', code: 'upload_not_verified' });

      const audio = await storeUpload(key.id, 'verified', 'audio_input');
      const wrongPurpose = await submit(key.key, { prompt: 'x', input_upload_id: audio });
      expectEnvelope(wrongPurpose, 422, 'validation_error');
      expect(wrongPurpose.json.error.details.issues[0]).toMatchObject({ code: 'upload_wrong_purpose' });

      const other = await createTestKey({ operations: localVideos({ input_uploads: true }) });
      const foreign = await storeUpload(other.id, 'verified');
      expectEnvelope(await submit(key.key, { prompt: 'x', input_upload_id: foreign }), 404, 'not_found');
      expect(await remainingUnits(key.id)).toBe(80);

      // An input that does not decode is found so by the engine, in the worker: the job fails, its units come back.
      const corrupt = await storeUpload(key.id, 'verified', 'image_input', true);
      const undecodable = await submit(key.key, { prompt: 'x', input_upload_id: corrupt });
      expect(undecodable.status, undecodable.text).toBe(202);
      const failed = jobSchema.parse((await waitForStatus(key.key, undecodable.json.job_id, ['succeeded', 'failed'])).json);
      expect([failed.status, failed.error?.code, failed.usage.charged_units]).toEqual(['failed', 'validation_error', 0]);
      expect(await remainingUnits(key.id)).toBe(80);
    });
  });
});
