import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { resetConfigForTests } from '@/server/config';
import { api, call, createTestKey, remainingUnits } from '../helpers/api';
import { setQuickJobQueue } from './support/jobs/job-calls';
import { expectVideoSold, runVideoJob, startVideoWorkerForFile, VIDEO_SECRET, videoKey } from './support/jobs/video-contract';
import type { FakeProviderServer } from './support/providers/fake-protocol-server';
import { startFalFake } from './support/providers/protocols/fal';
import { startGoogleFake } from './support/providers/protocols/google';
import { sampleMp4 } from './support/providers/protocols/media-samples';
import { startOpenAiStyleFake } from './support/providers/protocols/openai-style';
import { samplePng, verifiedUpload } from './support/storage/uploads';

// An uploaded input reaches an SDK provider in that provider's own terms, through /v1:
// images.generate with input_upload_id (openai-compatible: a multipart /images/edits; fal: an
// image_url data URI) and videos.generate with an input (fal: image_url; google: the Veo
// instance's base64 image). Charged once each.

process.env.PROVIDER_TIMEOUT_MS = '5000';
process.env.PROVIDER_MAX_RETRIES = '0';
setQuickJobQueue();
process.env.WGS_PROVIDER_KEY_FAKE_INPUT_KEY = VIDEO_SECRET;
resetConfigForTests();

startVideoWorkerForFile();

const IMAGE_UNITS = 5;
const dataUri = (mime: string, bytes: Buffer) => `data:${mime};base64,${bytes.toString('base64')}`;

let png: Buffer;
let compatible: FakeProviderServer;
let fal: FakeProviderServer;
let google: FakeProviderServer;
let providers: Record<string, unknown>;
beforeAll(async () => {
  png = await samplePng();
  compatible = await startOpenAiStyleFake();
  fal = await startFalFake();
  google = await startGoogleFake();
  providers = {
    igoogle: { type: 'google', base_url: `${google.origin}/v1beta`, api_key_env: 'WGS_PROVIDER_KEY_FAKE_INPUT_KEY' },
    icompat: { type: 'openai-compatible', base_url: `${compatible.origin}/v1`, api_key_env: 'WGS_PROVIDER_KEY_FAKE_INPUT_KEY' },
    ifal: { type: 'fal', base_url: fal.origin, api_key_env: 'WGS_PROVIDER_KEY_FAKE_INPUT_KEY' },
  };
});
afterAll(async () => {
  await compatible.close();
  await fal.close();
  await google.close();
});
beforeEach(() => {
  compatible.reset();
  fal.reset();
  google.reset();
});

async function imageWithInput(engine: string) {
  const key = await createTestKey({
    quota: 100,
    providers,
    operations: { 'images.generate': { engine, units: IMAGE_UNITS, output_formats: ['png'], input_uploads: true } },
  });
  const upload = await verifiedUpload(key.key, { purpose: 'image_input', mime_type: 'image/png', filename: 'in.png' }, png);
  const result = await call(api, '/v1/images/generate', { prompt: 'make it blue', input_upload_id: upload }, { key: key.key });
  expect(result.status, result.text).toBe(200);
  expect(result.json.usage.charged_units).toBe(IMAGE_UNITS);
  expect(await remainingUnits(key.id)).toBe(100 - IMAGE_UNITS);
}

/** videos.generate on `engine` with the PNG upload as its input ('the square spins'): the job succeeds, charged once. */
async function videoWithImageInput(engine: string) {
  const key = await videoKey(providers, engine, { input_uploads: true });
  const upload = await verifiedUpload(key.key, { purpose: 'image_input', mime_type: 'image/png', filename: 'in.png' }, png);
  const { job } = await runVideoJob(key, { prompt: 'the square spins', input_upload_id: upload });
  await expectVideoSold(key, job);
}

describe('images.generate with input_upload_id', () => {
  it('openai-compatible: the upload is the `image` part of a multipart /images/edits', async () => {
    await imageWithInput('icompat:flux-kontext');
    expect(compatible.requests.map((r) => `${r.method} ${r.path}`)).toEqual(['POST /v1/images/edits']);
    const edit = compatible.requests[0]!;
    expect(edit.headers['content-type']).toMatch(/^multipart\/form-data; boundary=/);
    expect(edit.headers.authorization).toBe(`Bearer ${VIDEO_SECRET}`);
    const body = edit.body.toString('latin1');
    expect(body).toMatch(/name="image"; filename="[^"]*"\r\nContent-Type: image\/png\r\n\r\n/);
    expect(edit.body.includes(png)).toBe(true);
    expect(body).toContain('make it blue');
  });

  it('fal: the upload is the image_url, a data URI of its bytes', async () => {
    await imageWithInput('ifal:fal-ai/flux-kontext/dev');
    expect(fal.requests[0]!.path).toBe('/fal-ai/flux-kontext/dev');
    expect(fal.requests[0]!.json).toMatchObject({ prompt: 'make it blue', image_url: dataUri('image/png', png) });
  });
});

describe('videos.generate with an input upload (fal)', () => {
  it('an image upload is the first frame: image_url, a data URI of its bytes; the job is charged once', async () => {
    await videoWithImageInput('ifal:luma-dream-machine');
    expect(fal.requests[0]!.path).toBe('/fal-ai/luma-dream-machine');
    expect(fal.requests[0]!.json).toEqual({ prompt: 'the square spins', image_url: dataUri('image/png', png) });
  });

  it('a video upload is sent as its first frame, a PNG (the provider takes an image)', async () => {
    const key = await videoKey(providers, 'ifal:luma-dream-machine', { input_uploads: true });
    const video = await sampleMp4();
    const upload = await verifiedUpload(key.key, { purpose: 'video_input', mime_type: 'video/mp4', filename: 'in.mp4' }, video);
    const { job } = await runVideoJob(key, { prompt: 'it goes on', input_upload_id: upload });
    await expectVideoSold(key, job);
    const sent = String(fal.requests[0]!.json.image_url);
    expect(sent.startsWith('data:image/png;base64,')).toBe(true);
    const frame = Buffer.from(sent.slice('data:image/png;base64,'.length), 'base64');
    expect(frame.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))).toBe(true);
  });
});

describe('videos.generate with an input upload (google Veo)', () => {
  it("an image upload is the instance's image, base64 with its type; the job is charged once", async () => {
    await videoWithImageInput('igoogle:veo-3.0-generate-001');
    expect(google.requests[0]!.path).toBe('/v1beta/models/veo-3.0-generate-001:predictLongRunning');
    expect(google.requests[0]!.json.instances).toEqual([
      { prompt: 'the square spins', image: { bytesBase64Encoded: png.toString('base64'), mimeType: 'image/png' } },
    ]);
  });
});
