import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resetConfigForTests } from '@/server/config';
import { getPrisma } from '@/server/db/client';
import { CLI_ACTOR } from '@/server/domain/actor';
import { applyPackages, parsePackagesFile } from '@/server/domain/packages/apply-packages';
import { ProviderUnavailableError } from '@/server/providers/engine';
import { resolveEngine } from '@/server/domain/providers/resolve-engine';
import type { FakeProviderServer } from './support/providers/fake-protocol-server';
import { startFalFake } from './support/providers/protocols/fal';
import { sampleMp4 } from './support/providers/protocols/media-samples';

// videos.generate through the AI SDK (fal's queue), at the engine: the failure kinds, a timeout
// included (sold through /v1 jobs: provider-videos-v1.test.ts). The video is read through the
// provider's capped fetch and checked as MP4 before anyone could be charged.

process.env.PROVIDER_TIMEOUT_MS = '1500';
process.env.PROVIDER_MAX_RETRIES = '0';
process.env.WGS_PROVIDER_KEY_FAKE_FAL_VIDEO_KEY = 'fal-video-secret';
resetConfigForTests();

let fake: FakeProviderServer;
let mp4: Buffer;
beforeAll(async () => {
  mp4 = await sampleMp4();
  fake = await startFalFake();
  await applyPackages(
    getPrisma(),
    CLI_ACTOR,
    parsePackagesFile({
      providers: { falvideo: { type: 'fal', base_url: fake.origin, api_key_env: 'WGS_PROVIDER_KEY_FAKE_FAL_VIDEO_KEY' } },
      packages: [
        {
          slug: 'fal-video-test',
          name: 'V',
          quota_units: 100,
          limits: { requests_per_minute: 10, concurrency: 1 },
          operations: { 'videos.generate': { engine: 'falvideo:luma-dream-machine', units: 20 } },
        },
      ],
    }),
  );
}, 120_000);
afterAll(() => fake.close());

describe('fal videos', () => {
  it('the queue is asked, the video read and sold as MP4', async () => {
    fake.reset();
    const engine = await resolveEngine('falvideo:luma-dream-machine');
    const video = await engine.generateVideo({ prompt: 'a lighthouse at dusk' }, AbortSignal.timeout(30_000));
    expect(video.mimeType).toBe('video/mp4');
    expect(video.bytes.equals(mp4)).toBe(true);
    expect(fake.requests.map((r) => `${r.method} ${r.path}`)).toEqual([
      'POST /fal-ai/luma-dream-machine',
      'GET /fal-ai/luma-dream-machine/requests/vid-fake-1',
      'GET /files/video.mp4',
    ]);
    expect(fake.requests[0]!.json).toMatchObject({ prompt: 'a lighthouse at dusk' });
    expect(fake.requests[0]!.headers.authorization).toContain('fal-video-secret');
  });

  it.each([
    ['a provider error', { kind: 'status', status: 503 }, 'server_error'],
    ['a timeout', { kind: 'hang' }, 'timeout'],
    ['a malformed answer', { kind: 'garbage' }, 'malformed'],
  ] as const)('%s is ProviderUnavailableError of its kind', async (_, mode, kind) => {
    fake.reset();
    fake.setMode(mode);
    const engine = await resolveEngine('falvideo:luma-dream-machine');
    const error = await engine.generateVideo({ prompt: 'x' }, AbortSignal.timeout(30_000)).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ProviderUnavailableError);
    expect((error as ProviderUnavailableError).kind).toBe(kind);
  });
});
