import { describe, expect } from 'vitest';
import { resetConfigForTests } from '@/server/config';
import { setQuickJobQueue } from './support/jobs/job-calls';
import { describeVideoContract, startVideoWorkerForFile, VIDEO_SECRET } from './support/jobs/video-contract';
import { startFalFake } from './support/providers/protocols/fal';
import { startGatewayFake } from './support/providers/protocols/gateway';
import { startGoogleFake } from './support/providers/protocols/google';
import { startMediaApisFake } from './support/providers/protocols/media-apis';
import { startOpenAiStyleFake } from './support/providers/protocols/openai-style';

// videos.generate through /v1 for every SDK provider type whose capability lists it (openai's
// own client: jobs.test.ts), each against a fake of its own protocol: submit, poll the job,
// read the MP4; a provider error, a malformed answer and a timeout fail the job, nothing charged.

// A hang is cut here; each request of a real job (submit, poll, download) may wait for
// seconds on a machine that runs the other lanes of npm test beside it.
process.env.PROVIDER_TIMEOUT_MS = '8000';
process.env.PROVIDER_MAX_RETRIES = '0';
setQuickJobQueue();
resetConfigForTests();

startVideoWorkerForFile();

const bearer = (request: { headers: Record<string, string | string[] | undefined> }) => String(request.headers.authorization);
const paths = (fake: { requests: { method: string; path: string }[] }) => fake.requests.map((r) => `${r.method} ${r.path}`);

describe('google (Veo: a long-running operation)', () => {
  describeVideoContract({
    type: 'google',
    start: async () => {
      const fake = await startGoogleFake();
      return { fake, entry: { base_url: `${fake.origin}/v1beta` } };
    },
    model: 'veo-3.0-generate-001',
    secretIn: (request) => String(request.headers['x-goog-api-key']),
    sent: (fake) => {
      expect(paths(fake)).toEqual([
        'POST /v1beta/models/veo-3.0-generate-001:predictLongRunning',
        'GET /v1beta/models/veo-3.0-generate-001/operations/op-fake-1',
        'GET /v1beta/files/vid-fake-1:download',
      ]);
      expect(fake.requests[0]!.json).toMatchObject({ instances: [{ prompt: 'a lighthouse at dusk' }], parameters: { sampleCount: 1 } });
      // The file URI is on the API's origin: the key goes with the download, as Google asks.
      expect(fake.requests[2]!.query.get('key')).toBe(VIDEO_SECRET);
    },
  });
});

describe('xai (a request id, polled)', () => {
  describeVideoContract({
    type: 'xai',
    start: async () => {
      const fake = await startOpenAiStyleFake();
      return { fake, entry: { base_url: `${fake.origin}/v1` } };
    },
    model: 'grok-imagine-video',
    secretIn: bearer,
    sent: (fake) => {
      expect(paths(fake)).toEqual(['POST /v1/videos/generations', 'GET /v1/videos/xvid-fake-1', 'GET /files/video.mp4']);
      expect(fake.requests[0]!.json).toEqual({ model: 'grok-imagine-video', prompt: 'a lighthouse at dusk' });
    },
  });
});

describe('fal (the queue)', () => {
  describeVideoContract({
    type: 'fal',
    start: async () => {
      const fake = await startFalFake();
      return { fake, entry: { base_url: fake.origin } };
    },
    model: 'luma-dream-machine',
    secretIn: bearer,
    sent: (fake) => {
      expect(paths(fake)).toEqual([
        'POST /fal-ai/luma-dream-machine',
        'GET /fal-ai/luma-dream-machine/requests/vid-fake-1',
        'GET /files/video.mp4',
      ]);
      expect(fake.requests[0]!.json).toEqual({ prompt: 'a lighthouse at dusk' });
    },
  });
});

describe('replicate (a prediction, polled)', () => {
  describeVideoContract({
    type: 'replicate',
    start: async () => {
      const fake = await startMediaApisFake();
      return { fake, entry: { base_url: `${fake.origin}/v1` } };
    },
    model: 'minimax/video-01',
    secretIn: bearer,
    sent: (fake) => {
      expect(paths(fake)).toEqual([
        'POST /v1/models/minimax/video-01/predictions',
        'GET /v1/predictions/pred-vid-1',
        'GET /files/video.mp4',
      ]);
      expect(fake.requests[0]!.json).toEqual({ input: { prompt: 'a lighthouse at dusk' } });
      expect(fake.requests[1]!.headers.authorization).toBe(`Bearer ${VIDEO_SECRET}`);
    },
  });
});

describe('gateway (a server-sent event)', () => {
  describeVideoContract({
    type: 'gateway',
    start: async () => {
      const fake = await startGatewayFake();
      return { fake, entry: { base_url: `${fake.origin}/v3/ai` } };
    },
    model: 'google/veo-3.0-generate-001',
    secretIn: bearer,
    sent: (fake) => {
      expect(paths(fake)).toEqual(['POST /v3/ai/video-model']);
      expect(fake.requests[0]!.headers['ai-model-id']).toBe('google/veo-3.0-generate-001');
      expect(fake.requests[0]!.json).toMatchObject({ prompt: 'a lighthouse at dusk', n: 1 });
    },
  });
});
