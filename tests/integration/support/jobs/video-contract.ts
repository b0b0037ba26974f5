import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { jobSchema } from '@/server/contract/jobs-and-uploads';
import { getPool } from '@/server/db/client';
import { stopJobQueue } from '@/server/domain/jobs/job-queue';
import { startWorker, type RunningWorker } from '@/server/jobs/worker';
import { createTestKey, expectNothingShown, remainingUnits, type CallResult, type TestKey } from '../../../helpers/api';
import { FAKE_PROVIDER_DIAGNOSTIC, type FakeProviderMode, type FakeProviderServer } from '../providers/fake-protocol-server';
import { mediaSamples, sampleMp4, setFakeVideo } from '../providers/protocols/media-samples';
import { download, holdsOf, submitVideo, usageOf, waitForStatus } from './job-calls';
import { probeVideo } from './video-probe';

// One provider type's videos.generate through /v1, against a fake speaking its wire protocol
// (reached through the real SDK): POST /v1/videos/generate, GET /v1/jobs/{id} until the job
// settles, then its signed URL. A video job is charged once, and only for a real MP4; a provider
// error, a job the provider reports failed, a malformed answer or a timeout fails the job with provider_unavailable, every unit returned.
// The test file starts the worker (`startVideoWorkerForFile`) and sets its queue settings first.

type Job = z.infer<typeof jobSchema>;

export const VIDEO_UNITS = 20;
export const VIDEO_SECRET = 'sk-video-secret-0123456789abcdef';

export interface VideoContractSpec {
  type: string;
  start(): Promise<{ fake: FakeProviderServer; entry: Record<string, unknown> }>;
  model: string;
  /** The secret as the provider's own header carries it, from a request. */
  secretIn(request: FakeProviderServer['requests'][number]): string | undefined;
  /** Checks of what the fake received for a successful job, in the provider's own terms. */
  sent?(fake: FakeProviderServer): void;
}

/** A queue worker for the file's video jobs (the route only enqueues them). */
export function startVideoWorkerForFile(): void {
  let worker: RunningWorker | undefined;
  beforeAll(async () => {
    worker = await startWorker({ concurrency: 2 });
  });
  afterAll(async () => {
    await worker?.stop();
    await stopJobQueue();
  });
}

/** A fresh key whose package sells videos.generate through `engine` (fresh: its holds and usage are its own). */
export function videoKey(providers: Record<string, unknown>, engine: string, extra: Record<string, unknown> = {}): Promise<TestKey> {
  return createTestKey({ quota: 100, providers, operations: { 'videos.generate': { engine, units: VIDEO_UNITS, ...extra } } });
}

/** Submits a job and waits until it settles: the submission (202, units held) and the settled job. */
export async function runVideoJob(key: TestKey, body: Record<string, unknown>): Promise<{ job: Job; view: CallResult }> {
  const submitted = await submitVideo(key.key, body);
  expect(submitted.status, submitted.text).toBe(202);
  expect(await remainingUnits(key.id)).toBe(100 - VIDEO_UNITS);
  const view = await waitForStatus(key.key, submitted.json.job_id, ['succeeded', 'failed']);
  return { job: jobSchema.parse(view.json), view };
}

/** The job succeeded with a real H.264 MP4 (the fake's), charged exactly once. */
export async function expectVideoSold(key: TestKey, job: Job): Promise<void> {
  expect(job.status, JSON.stringify(job.error)).toBe('succeeded');
  expect(job.usage.charged_units).toBe(VIDEO_UNITS);
  const file = await download(job.result!.url);
  expect(file.status).toBe(200);
  expect(file.type).toBe('video/mp4');
  expect(file.bytes.equals(await sampleMp4())).toBe(true);
  const probe = probeVideo(file.bytes);
  expect(probe.codec).toBe('h264');
  expect(probe.decodedFrames).toBeGreaterThan(0);
  expect(probe.errors).toBe('');
  expect(await remainingUnits(key.id)).toBe(100 - VIDEO_UNITS);
  expect(await holdsOf(key.id)).toEqual([{ status: 'captured', units: VIDEO_UNITS, counts_in_flight: false }]);
  expect(await usageOf(key.id)).toEqual([{ outcome: 'succeeded', units: VIDEO_UNITS, job_id: job.job_id, error_code: null }]);
  // The provider's length of the video, or (none reported) the video's own, marked estimated: never nothing.
  const { rows } = await getPool().query<{ seconds: number | null }>(
    'SELECT video_seconds::float8 AS seconds FROM usage_events WHERE job_id = $1',
    [job.job_id],
  );
  expect(rows[0]!.seconds).toBeCloseTo(1, 1);
}

/** The job failed with provider_unavailable, nothing of the provider shown, every unit returned. */
export async function expectVideoFailed(key: TestKey, job: Job, view: CallResult, fake: FakeProviderServer): Promise<void> {
  expect(job.status).toBe('failed');
  expect(job.error!.code).toBe('provider_unavailable');
  expect(job.result).toBeNull();
  expect(job.usage.charged_units).toBe(0);
  expectNothingShown(view.text, [FAKE_PROVIDER_DIAGNOSTIC, 'replica 9', VIDEO_SECRET], fake.port);
  expect(await remainingUnits(key.id)).toBe(100);
  expect(await holdsOf(key.id)).toEqual([{ status: 'released', units: VIDEO_UNITS, counts_in_flight: false }]);
  expect(await usageOf(key.id)).toEqual([{ outcome: 'failed', units: 0, job_id: job.job_id, error_code: 'provider_unavailable' }]);
}

export function describeVideoContract(spec: VideoContractSpec): void {
  const name = `v${spec.type.replace(/[^a-z0-9]/g, '')}`.slice(0, 30);
  const envName = `WGS_PROVIDER_KEY_FAKE_${spec.type.replace(/[^a-z0-9]/gi, '_').toUpperCase()}_VIDEO_KEY`;
  let fake: FakeProviderServer;
  let providers: Record<string, unknown>;

  beforeAll(async () => {
    process.env[envName] = VIDEO_SECRET;
    const started = await spec.start();
    fake = started.fake;
    providers = { [name]: { type: spec.type, ...started.entry, api_key_env: envName } };
  });
  afterAll(() => fake.close());
  beforeEach(() => fake.reset());

  describe(`${spec.type}: videos.generate through /v1 jobs`, () => {
    it("the job succeeds with the provider's MP4, charged once", async () => {
      const key = await videoKey(providers, `${name}:${spec.model}`);
      const { job } = await runVideoJob(key, { prompt: 'a lighthouse at dusk' });
      await expectVideoSold(key, job);
      expect(spec.secretIn(fake.requests[0]!)).toContain(VIDEO_SECRET);
      spec.sent?.(fake);
    });

    const failures: [string, FakeProviderMode][] = [
      ['a provider error (HTTP 503)', { kind: 'status', status: 503 }],
      ['a malformed answer', { kind: 'garbage' }],
      ['a timeout (no answer within PROVIDER_TIMEOUT_MS)', { kind: 'hang' }],
      ['the provider reporting the job failed, in its own terms', { kind: 'job-failed' }],
    ];
    it.each(failures)('%s fails the job, nothing charged', async (_, mode) => {
      fake.setMode(mode);
      const key = await videoKey(providers, `${name}:${spec.model}`);
      const { job, view } = await runVideoJob(key, { prompt: 'a storm over the sea' });
      await expectVideoFailed(key, job, view, fake);
      expect(fake.requests.length).toBeGreaterThan(0);
    });

    it('a video that is not an MP4 (a PNG) is refused by the media check: the job fails, nothing charged', async () => {
      setFakeVideo((await mediaSamples()).png);
      try {
        const key = await videoKey(providers, `${name}:${spec.model}`);
        const { job, view } = await runVideoJob(key, { prompt: 'a still picture' });
        await expectVideoFailed(key, job, view, fake);
      } finally {
        setFakeVideo(undefined);
      }
    });
  });
}
