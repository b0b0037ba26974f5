import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GET as filesGet } from '@/app/files/[...key]/route';
import { getPool } from '@/server/db/client';
import { resetConfigForTests } from '@/server/config';
import { synthesizeSpeech } from '@/server/providers/local/speech';
import { api, call, createTestKey, expectEnvelope, remainingUnits, type TestKey } from '../helpers/api';
import { samplePng, sampleWav, verifiedUpload } from './support/storage/uploads';
import { startFakeMediaProvider, type FakeMediaProvider } from './support/providers/fake-media-provider';

// Media from an OpenAI-compatible provider is checked before it is sold: the format asked for
// (an image in another image format is converted), else 503 and nothing charged.

process.env.WGS_PROVIDER_KEY_FAKE_MEDIA_KEY = 'sk-fake-media-0123456789';
process.env.PROVIDER_MAX_RETRIES = '0';
resetConfigForTests();

const HTML = Buffer.from('<!doctype html><html><body>Service temporarily paused</body></html>');
let fake: FakeMediaProvider;
let key: TestKey;

beforeAll(async () => {
  fake = await startFakeMediaProvider();
  key = await createTestKey({
    quota: 100,
    providers: { media: { type: 'openai', base_url: fake.baseUrl, api_key_env: 'WGS_PROVIDER_KEY_FAKE_MEDIA_KEY' } },
    operations: {
      'images.generate': { engine: 'media:image-model', units: 5, output_formats: ['png', 'webp'], input_uploads: true },
      'audio.speech': { engine: 'media:speech-model', units: 3, output_formats: ['wav', 'mp3'] },
      'audio.transcribe': { engine: 'media:whisper-model', units: 4, timestamps: ['segment', 'none'] },
    },
  });
});
afterAll(() => fake.close());

async function output(url: string): Promise<{ type: string | null; bytes: Buffer }> {
  const response = await filesGet(new Request(url));
  expect(response.status).toBe(200);
  return { type: response.headers.get('content-type'), bytes: Buffer.from(await response.arrayBuffer()) };
}

describe('images from a provider', () => {
  it('the format asked for is sold as it came; another image format is converted to it', async () => {
    fake.image = await samplePng();
    const asked = await call(api, '/v1/images/generate', { prompt: 'a lighthouse', output_format: 'png' }, { key: key.key });
    expect(asked.status, asked.text).toBe(200);
    const png = await output(asked.json.output.url);
    expect(png.bytes.equals(fake.image)).toBe(true);

    fake.image = await sharp({ create: { width: 8, height: 8, channels: 3, background: '#123456' } })
      .jpeg()
      .toBuffer();
    const converted = await call(api, '/v1/images/generate', { prompt: 'a lighthouse', output_format: 'webp' }, { key: key.key });
    expect(converted.status, converted.text).toBe(200);
    const webp = await output(converted.json.output.url);
    expect(webp.type).toBe('image/webp');
    expect((await sharp(webp.bytes).metadata()).format).toBe('webp');
    expect(converted.json.usage.charged_units).toBe(5);
  });

  it('bytes that are no image, or an undecodable one, are 503 and charge nothing', async () => {
    const pngHeaderOnly = (await samplePng()).subarray(0, 40);
    for (const bytes of [HTML, Buffer.alloc(0), pngHeaderOnly.subarray(0, 8)]) {
      fake.image = bytes;
      const before = await remainingUnits(key.id);
      const result = await call(api, '/v1/images/generate', { prompt: 'a lighthouse', output_format: 'webp' }, { key: key.key });
      expectEnvelope(result, 503, 'provider_unavailable');
      expect(result.text).not.toContain('paused');
      expect(await remainingUnits(key.id)).toBe(before);
    }
  });
});

describe('an image to transform, sent to a provider', () => {
  it('goes as what it is (a JPEG as input.jpg, image/jpeg): OpenAI refuses an untyped part', async () => {
    const jpeg = await sharp({ create: { width: 8, height: 8, channels: 3, background: '#345678' } })
      .jpeg()
      .toBuffer();
    const uploadId = await verifiedUpload(key.key, { purpose: 'image_input', mime_type: 'image/jpeg', filename: 'photo.jpg' }, jpeg);
    fake.image = await samplePng();
    const result = await call(
      api,
      '/v1/images/generate',
      { prompt: 'warmer', input_upload_id: uploadId, output_format: 'png' },
      { key: key.key },
    );
    expect(result.status, result.text).toBe(200);
    const multipart = fake.bodies.get('/v1/images/edits')!.toString('latin1');
    expect(multipart).toMatch(/name="image"; filename="input\.jpg"\r\nContent-Type: image\/jpeg\r\n/);
    expect(multipart).toContain(jpeg.toString('latin1'));
  });
});

describe('transcripts from a provider', () => {
  let audioId: string;
  beforeAll(async () => {
    audioId = await verifiedUpload(key.key, { purpose: 'audio_input', mime_type: 'audio/wav', filename: 'a.wav' }, await sampleWav());
  });
  const transcribe = () => call(api, '/v1/audio/transcribe', { input_upload_id: audioId, timestamps: 'segment' }, { key: key.key });

  it("well-formed segments are sold as {start, end, text}, the provider's other members dropped", async () => {
    // A segment as OpenAI's verbose_json has it (the SDK holds the answer to that documented shape).
    const segment = { id: 0, seek: 0, start: 0, end: 1.5, text: ' Hello there. ', tokens: [1, 2], temperature: 0 };
    const scores = { avg_logprob: -0.2, compression_ratio: 1.1, no_speech_prob: 0.01 };
    fake.transcript = { text: 'Hello there.', segments: [{ ...segment, ...scores }] };
    const result = await transcribe();
    expect(result.status, result.text).toBe(200);
    expect(result.json.output).toEqual({ text: 'Hello there.', segments: [{ start: 0, end: 1.5, text: 'Hello there.' }] });
    expect(result.json.usage.charged_units).toBe(4);
  });

  it('the usage event records what the provider reported: seconds of audio, and images and characters for the others', async () => {
    const segment = { id: 0, seek: 0, start: 0, end: 1, text: 'Hi.', tokens: [1], temperature: 0 };
    const scores = { avg_logprob: -0.2, compression_ratio: 1.1, no_speech_prob: 0.01 };
    fake.transcript = { text: 'Hi.', duration: 12.5, segments: [{ ...segment, ...scores }] };
    expect((await transcribe()).status).toBe(200);
    const latest = async (operation: string) =>
      (
        await getPool().query(
          `SELECT audio_seconds::text, images, characters, unpriced FROM usage_events
            WHERE api_key_id = $1 AND operation = $2 AND outcome = 'succeeded' ORDER BY created_at DESC LIMIT 1`,
          [key.id, operation],
        )
      ).rows[0];
    // No price is known for these fake models: counted as unpriced, never guessed.
    expect(await latest('audio.transcribe')).toEqual({ audio_seconds: '12.500', images: null, characters: null, unpriced: true });
    fake.image = await samplePng();
    expect((await call(api, '/v1/images/generate', { prompt: 'a lighthouse', output_format: 'png' }, { key: key.key })).status).toBe(200);
    expect(await latest('images.generate')).toMatchObject({ images: 1, unpriced: true });
  });

  it.each([
    ['a negative start', { text: 'x', segments: [{ start: -5, end: -1, text: 'x' }] }],
    ['an end before its start', { text: 'x', segments: [{ start: 9, end: 2, text: 'x' }] }],
    ['a segment without text', { text: 'x', segments: [{ start: 0, end: 1 }] }],
    ['a start that is no number', { text: 'x', segments: [{ start: 'abc', end: 1, text: 'x' }] }],
    ['text that is an object', { text: 'x', segments: [{ start: 0, end: 1, text: { o: 1 } }] }],
    ['no segments at all', { text: 'x' }],
    ['no text', { segments: [] }],
    ['a reply over 16 MiB (read whole, it would exhaust the heap)', { text: 'x'.repeat(17 * 1024 * 1024), segments: [] }],
  ])('%s is 503 and charges nothing', async (_, transcript) => {
    fake.transcript = transcript;
    const before = await remainingUnits(key.id);
    const result = await transcribe();
    expectEnvelope(result, 503, 'provider_unavailable');
    expect(await remainingUnits(key.id)).toBe(before);
  });
});

describe('speech from a provider', () => {
  it('audio of the format asked for is sold; anything else is 503 and charges nothing', async () => {
    fake.speech = (await synthesizeSpeech({ text: 'Hello.', format: 'wav' })).bytes;
    const wav = await call(api, '/v1/audio/speech', { text: 'Hello.', output_format: 'wav' }, { key: key.key });
    expect(wav.status, wav.text).toBe(200);
    expect((await output(wav.json.output.url)).bytes.subarray(0, 4).toString()).toBe('RIFF');

    for (const [bytes, format] of [
      [fake.speech, 'mp3'],
      [HTML, 'wav'],
    ] as const) {
      fake.speech = bytes;
      const before = await remainingUnits(key.id);
      const result = await call(api, '/v1/audio/speech', { text: 'Hello.', output_format: format }, { key: key.key });
      expectEnvelope(result, 503, 'provider_unavailable');
      expect(await remainingUnits(key.id)).toBe(before);
    }
  });
});
