import { randomBytes } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { jobSchema } from '@/server/contract/jobs-and-uploads';
import { resetConfigForTests } from '@/server/config';
import { getPool } from '@/server/db/client';
import { api, call, remainingUnits } from '../helpers/api';
import { getJob, holdsOf, setQuickJobQueue, submitVideo, usageOf } from './support/jobs/job-calls';
import { pollUntil } from './support/jobs/poll';
import { startVideoWorkerForFile, VIDEO_SECRET, VIDEO_UNITS, videoKey } from './support/jobs/video-contract';
import type { FakeProviderServer } from './support/providers/fake-protocol-server';
import { startFalFake } from './support/providers/protocols/fal';
import { startGoogleFake } from './support/providers/protocols/google';
import { startMediaApisFake } from './support/providers/protocols/media-apis';
import { startOpenAiStyleFake } from './support/providers/protocols/openai-style';

// Cancelling a running video job against each SDK protocol's fake, the provider still rendering
// (every poll says in progress): the job is charged (its provider was at work), the worker stops
// polling, and the provider's own cancel is called where its API has one (fal's queue, Replicate's
// predictions); Google's Veo operations and xAI's videos have none: only the polls stop.
// (openai, through its own client, has no cancel either: job-cancel.test.ts.)

process.env.PROVIDER_MAX_RETRIES = '0';
process.env.JOB_CANCEL_CHECK_SECONDS = '0.2';
process.env.WGS_PROVIDER_KEY_FAKE_VIDEO_CANCEL = VIDEO_SECRET;
setQuickJobQueue();
resetConfigForTests();
startVideoWorkerForFile();

const fakes: FakeProviderServer[] = [];
afterAll(async () => {
  await Promise.all(fakes.map((fake) => fake.close()));
});

interface Protocol {
  type: string;
  start: () => Promise<FakeProviderServer>;
  baseUrl: (fake: FakeProviderServer) => string;
  model: string;
  /** The provider's cancel call, as the fake receives it; undefined: its API has none. */
  cancel?: string;
}

const PROTOCOLS: Protocol[] = [
  {
    type: 'fal',
    start: startFalFake,
    baseUrl: (fake) => fake.origin,
    model: 'luma-dream-machine',
    cancel: 'PUT /fal-ai/luma-dream-machine/requests/vid-fake-1/cancel',
  },
  {
    type: 'replicate',
    start: startMediaApisFake,
    baseUrl: (fake) => `${fake.origin}/v1`,
    model: 'minimax/video-01',
    cancel: 'POST /v1/predictions/pred-vid-1/cancel',
  },
  { type: 'google', start: startGoogleFake, baseUrl: (fake) => `${fake.origin}/v1beta`, model: 'veo-3.0-generate-001' },
  { type: 'xai', start: startOpenAiStyleFake, baseUrl: (fake) => `${fake.origin}/v1`, model: 'grok-imagine-video' },
];

const attemptOutcome = (jobId: string) =>
  pollUntil('the attempt to end', async () => {
    const { rows } = await getPool().query<{ state: string; output: { outcome?: string } | null }>(
      `SELECT state, output FROM pgboss.job WHERE name = 'videos-generate' AND data->>'jobId' = $1`,
      [jobId],
    );
    return rows[0]?.state === 'completed' ? rows[0].output : undefined;
  });

describe.each(PROTOCOLS)('cancelling a running $type video job', (protocol) => {
  it(`is charged; ${protocol.cancel ? "the provider's cancel is called" : 'the polls stop (no cancel in its API)'}`, async () => {
    const fake = await protocol.start();
    fakes.push(fake);
    fake.setMode({ kind: 'job-pending' });
    const name = `cancel${randomBytes(4).toString('hex')}`;
    const providers = {
      [name]: { type: protocol.type, base_url: protocol.baseUrl(fake), api_key_env: 'WGS_PROVIDER_KEY_FAKE_VIDEO_CANCEL' },
    };
    const key = await videoKey(providers, `${name}:${protocol.model}`);
    const submitted = await submitVideo(key.key, { prompt: 'a lighthouse at dusk' });
    expect(submitted.status, submitted.text).toBe(202);
    const jobId = submitted.json.job_id as string;
    await pollUntil('the provider to be polled', async () => (fake.requests.some((r) => r.method === 'GET') ? true : undefined));

    const cancelled = await call(api, `/v1/jobs/${jobId}/cancel`, {}, { key: key.key });
    expect(cancelled.status, cancelled.text).toBe(200);
    expect(jobSchema.parse(cancelled.json)).toMatchObject({ status: 'cancelled', usage: { charged_units: VIDEO_UNITS } });
    expect(await remainingUnits(key.id)).toBe(100 - VIDEO_UNITS);
    expect(await holdsOf(key.id)).toEqual([{ status: 'captured', units: VIDEO_UNITS, counts_in_flight: false }]);
    expect(await usageOf(key.id)).toEqual([{ outcome: 'succeeded', units: VIDEO_UNITS, job_id: jobId, error_code: 'job_cancelled' }]);

    expect(await attemptOutcome(jobId)).toEqual({ outcome: 'cancelled' });
    const sent = fake.requests.map((r) => `${r.method} ${r.path}`);
    if (protocol.cancel) {
      expect(sent).toContain(protocol.cancel);
      const cancel = fake.requests.find((r) => `${r.method} ${r.path}` === protocol.cancel)!;
      expect(String(cancel.headers.authorization)).toContain(VIDEO_SECRET);
    } else {
      expect(sent.filter((line) => !line.startsWith('GET ') && !line.startsWith('POST ')).length).toBe(0);
      expect(sent.filter((line) => line.includes('cancel'))).toEqual([]);
    }
    const polls = fake.requests.length;
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(fake.requests.length, 'no poll after the attempt ended').toBe(polls);
    expect(jobSchema.parse((await getJob(key.key, jobId)).json)).toMatchObject({
      status: 'cancelled',
      usage: { charged_units: VIDEO_UNITS },
    });
  });
});
