import { buffer } from 'node:stream/consumers';
import sharp from 'sharp';
import { beforeAll, describe, expect, it } from 'vitest';
import { GET as filesGet, HEAD as filesHead } from '@/app/files/[...key]/route';
import { readdirSync } from 'node:fs';
import { audioSpeechResponse, audioTranscribeResponse, imagesGenerateResponse } from '@/server/contract/generation';
import { getObjectStore } from '@/server/storage/get-object-store';
import { signObjectUrl, verifyObjectUrl } from '@/server/storage/signed-urls';
import { estimateSpeechSeconds } from '@/server/providers/local/speech';
import { renderVideo } from '@/server/providers/local/video';
import { api, call, createTestKey, expectEnvelope, remainingUnits, type CallResult, type TestKey } from '../helpers/api';
import { decodeAudio, parseWav } from '../unit/local-engine/media-tools';
import { createUpload, putBytes, samplePng, sampleWav, sha256Hex, verifiedUpload } from './support/storage/uploads';

const OPERATIONS = {
  'images.generate': {
    engine: 'local',
    units: 5,
    output_formats: ['webp', 'png', 'jpeg'],
    styles: ['photo', 'sketch'],
    input_uploads: true,
  },
  'audio.speech': {
    engine: 'local',
    units: 3,
    voices: ['alloy', 'ember'],
    languages: ['en', 'en-US'],
    output_formats: ['wav', 'mp3'],
    max_duration_seconds: 20,
  },
  'audio.transcribe': { engine: 'local', units: 4, languages: ['en'], timestamps: ['segment', 'none'] },
};

let main: TestKey;
let narrow: TestKey;

beforeAll(async () => {
  main = await createTestKey({ operations: OPERATIONS, quota: 10_000 });
  narrow = await createTestKey({
    operations: {
      'images.generate': { engine: 'local', units: 2, output_formats: ['jpeg'] },
      'audio.speech': { engine: 'local', units: 1 },
      'audio.transcribe': { engine: 'local', units: 1, timestamps: ['none'] },
    },
  });
});

/** GET the signed output URL through the /files route, as a client would. */
async function fetchOutput(
  url: string,
): Promise<{ status: number; type: string | null; bytes: Buffer; json: CallResult['json']; headers: Headers }> {
  const response = await filesGet(new Request(url));
  const bytes = Buffer.from(await response.arrayBuffer());
  let json: unknown;
  try {
    json = JSON.parse(bytes.toString());
  } catch {
    json = undefined;
  }
  return { status: response.status, type: response.headers.get('content-type'), bytes, json, headers: response.headers };
}

function issue(result: Pick<CallResult, 'json'>) {
  return result.json.error.details.issues[0];
}

describe('images.generate', () => {
  it('renders every format, served with its Content-Type, decoding to a real image; charges the package units', async () => {
    for (const [format, mime] of [
      ['png', 'image/png'],
      ['jpeg', 'image/jpeg'],
      ['webp', 'image/webp'],
    ] as const) {
      const before = await remainingUnits(main.id);
      const asked = Date.now();
      const result = await call(
        api,
        '/v1/images/generate',
        { prompt: `a red fox in snow (${format})`, output_format: format },
        { key: main.key },
      );
      expect(result.status, result.text).toBe(200);
      const body = imagesGenerateResponse.parse(result.json);
      expect(body.usage).toEqual({ charged_units: 5, remaining_units: before - 5 });
      expect(await remainingUnits(main.id)).toBe(before - 5);
      expect(body.output.expires_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.000Z$/);
      const ttl = Date.parse(body.output.expires_at) - Date.now();
      expect(ttl).toBeGreaterThan(880_000);
      expect(ttl).toBeLessThanOrEqual(901_000);
      // It lives the whole OUTPUT_URL_TTL_SECONDS (15 minutes) from the answer: up to a second less before (clock audit).
      expect(Date.parse(body.output.expires_at)).toBeGreaterThanOrEqual(asked + 900_000);
      const verified = verifyObjectUrl(new URL(body.output.url));
      expect(verified.ok && verified.key).toMatch(new RegExp(`^outputs/[0-9a-f-]{36}\\.`));

      const file = await fetchOutput(body.output.url);
      expect(file.status).toBe(200);
      expect(file.type).toBe(mime);
      // CONTRACT.md §1: every response, the private output URLs included.
      expect(file.headers.get('cache-control')).toBe('no-store');
      expect(file.headers.get('x-request-id')).toMatch(/^req_[A-Za-z0-9_-]{24,}$/);
      const meta = await sharp(file.bytes).metadata();
      expect(meta.format).toBe(format);
      const { info } = await sharp(file.bytes).raw().toBuffer({ resolveWithObject: true });
      expect(info.width * info.height).toBeGreaterThan(0);
    }
  });

  it('omitted output_format takes the package default (first listed); fallback png without a list', async () => {
    const result = await call(api, '/v1/images/generate', { prompt: 'default format' }, { key: main.key });
    expect((await fetchOutput(result.json.output.url)).type).toBe('image/webp');
    const all = await createTestKey({ operations: { 'images.generate': { engine: 'local', units: 1 } } });
    const png = await call(api, '/v1/images/generate', { prompt: 'no list' }, { key: all.key });
    const file = await fetchOutput(png.json.output.url);
    expect(file.type).toBe('image/png');
    expect((await sharp(file.bytes).metadata()).format).toBe('png');
  });

  it('style and format outside the package are 422 not_allowed_by_package and charge nothing', async () => {
    const before = await remainingUnits(main.id);
    const style = await call(api, '/v1/images/generate', { prompt: 'x', style: 'watercolor' }, { key: main.key });
    expectEnvelope(style, 422, 'validation_error');
    expect(issue(style)).toMatchObject({ path: 'style', code: 'not_allowed_by_package' });
    expect((await call(api, '/v1/images/generate', { prompt: 'x', style: 'sketch' }, { key: main.key })).status).toBe(200);
    const format = await call(api, '/v1/images/generate', { prompt: 'x', output_format: 'png' }, { key: narrow.key });
    expectEnvelope(format, 422, 'validation_error');
    expect(issue(format)).toMatchObject({ path: 'output_format', code: 'not_allowed_by_package' });
    expectEnvelope(
      await call(api, '/v1/images/generate', { prompt: 'x', output_format: 'gif' }, { key: main.key }),
      422,
      'validation_error',
    );
    expect(await remainingUnits(main.id)).toBe(before - 5);
  });

  it('every setting the package does not allow is named in one 422, not only the first', async () => {
    const both = await call(api, '/v1/images/generate', { prompt: 'x', style: 'watercolor', output_format: 'png' }, { key: narrow.key });
    expectEnvelope(both, 422, 'validation_error');
    expect(both.json.error.details.issues).toEqual([expect.objectContaining({ path: 'output_format', code: 'not_allowed_by_package' })]); // narrow sets no style list: any style is allowed
    const three = await call(
      api,
      '/v1/images/generate',
      {
        prompt: 'x',
        output_format: 'png',
        input_upload_id: 'upl_abcdefghijklmnopqrstuvwx',
      },
      { key: narrow.key },
    );
    expect(three.json.error.details.issues.map((i: { path: string; code: string }) => [i.path, i.code])).toEqual([
      ['output_format', 'not_allowed_by_package'],
      ['input_upload_id', 'not_allowed_by_package'],
    ]);
    const speech = await call(api, '/v1/audio/speech', { text: 'x', voice: 'nova', language: 'de' }, { key: main.key });
    expectEnvelope(speech, 422, 'validation_error');
    expect(speech.json.error.details.issues.map((i: { path: string }) => i.path)).toEqual(['voice', 'language']);
  });

  it('input uploads: allowed only when the package says so, owned (404), image purpose and verified (422)', async () => {
    const png = await samplePng();
    const id = await verifiedUpload(main.key, { purpose: 'image_input', mime_type: 'image/png' }, png);
    const ok = await call(
      api,
      '/v1/images/generate',
      { prompt: 'make it blue', input_upload_id: id, output_format: 'png' },
      { key: main.key },
    );
    expect(ok.status, ok.text).toBe(200);
    expect((await sharp((await fetchOutput(ok.json.output.url)).bytes).metadata()).format).toBe('png');

    const noInput = await call(api, '/v1/images/generate', { prompt: 'x', input_upload_id: id }, { key: narrow.key });
    expectEnvelope(noInput, 422, 'validation_error');
    expect(issue(noInput)).toMatchObject({ path: 'input_upload_id', code: 'not_allowed_by_package' });

    const stranger = await createTestKey({ operations: OPERATIONS });
    expectEnvelope(await call(api, '/v1/images/generate', { prompt: 'x', input_upload_id: id }, { key: stranger.key }), 404, 'not_found');
    expectEnvelope(
      await call(api, '/v1/images/generate', { prompt: 'x', input_upload_id: 'upl_unknown000000000000' }, { key: main.key }),
      404,
      'not_found',
    );

    const wav = await sampleWav('Hi.');
    const audioId = await verifiedUpload(main.key, { purpose: 'audio_input', mime_type: 'audio/wav' }, wav);
    const wrongPurpose = await call(api, '/v1/images/generate', { prompt: 'x', input_upload_id: audioId }, { key: main.key });
    expectEnvelope(wrongPurpose, 422, 'validation_error');
    expect(issue(wrongPurpose)).toMatchObject({ path: 'input_upload_id', code: 'upload_wrong_purpose' });

    const pending = await createUpload(main.key, { purpose: 'image_input', mime_type: 'image/png' }, png);
    await putBytes(pending.json.upload_url, png);
    const unverified = await call(api, '/v1/images/generate', { prompt: 'x', input_upload_id: pending.json.upload_id }, { key: main.key });
    expectEnvelope(unverified, 422, 'validation_error');
    expect(issue(unverified)).toMatchObject({ path: 'input_upload_id', code: 'upload_not_verified' });

    // The upload's problem is listed with the package's settings' (outside audit: only the style's was).
    const both = await call(api, '/v1/images/generate', { prompt: 'x', style: 'oil', input_upload_id: audioId }, { key: main.key });
    expectEnvelope(both, 422, 'validation_error');
    expect(both.json.error.details.issues.map((i: { code: string }) => i.code)).toEqual(['not_allowed_by_package', 'upload_wrong_purpose']);
    // An unknown upload is 404 only when nothing else is wrong: else the settings' 422, as before.
    const unknown = { prompt: 'x', input_upload_id: 'upl_unknown000000000000' };
    expectEnvelope(await call(api, '/v1/images/generate', { ...unknown, style: 'oil' }, { key: main.key }), 422, 'validation_error');
  });

  it('405 for GET', async () => {
    expectEnvelope(await call(api, '/v1/images/generate', undefined, { key: main.key }), 405, 'method_not_allowed');
  });
});

describe('audio.speech', () => {
  it('wav is a well-formed RIFF/WAVE file; mp3 decodes with ffmpeg; 3 units each', async () => {
    const before = await remainingUnits(main.id);
    const wav = await call(
      api,
      '/v1/audio/speech',
      { text: 'Hello world. Testing speech.', output_format: 'wav', voice: 'ember', language: 'en-US' },
      { key: main.key },
    );
    expect(wav.status, wav.text).toBe(200);
    expect(audioSpeechResponse.parse(wav.json).usage.charged_units).toBe(3);
    const wavFile = await fetchOutput(wav.json.output.url);
    expect(wavFile.type).toBe('audio/wav');
    const info = parseWav(wavFile.bytes);
    expect(info.riffSize).toBe(wavFile.bytes.length - 8);
    expect(info.dataSize).toBe(wavFile.bytes.length - 44);
    expect(info).toMatchObject({ format: 1, channels: 1, bitsPerSample: 16 });
    expect(info.byteRate).toBe(info.sampleRate * info.blockAlign);

    const mp3 = await call(api, '/v1/audio/speech', { text: 'Hello world. Testing speech.', output_format: 'mp3' }, { key: main.key });
    expect(mp3.status, mp3.text).toBe(200);
    const mp3File = await fetchOutput(mp3.json.output.url);
    expect(mp3File.type).toBe('audio/mpeg');
    const samples = await decodeAudio(mp3File.bytes, 'mp3');
    expect(samples.length).toBeGreaterThan(16_000 * 0.5);
    expect(await remainingUnits(main.id)).toBe(before - 6);
  });

  it('default format is the first listed (wav here), mp3 without a list', async () => {
    const result = await call(api, '/v1/audio/speech', { text: 'Default.' }, { key: main.key });
    expect((await fetchOutput(result.json.output.url)).type).toBe('audio/wav');
    const plain = await call(api, '/v1/audio/speech', { text: 'Default.' }, { key: narrow.key });
    const file = await fetchOutput(plain.json.output.url);
    expect(file.type).toBe('audio/mpeg');
    expect((await decodeAudio(file.bytes, 'mp3')).length).toBeGreaterThan(0);
  });

  it('voice, language, format and duration outside the package are 422 and charge nothing; language tags match in any case', async () => {
    const only = await createTestKey({
      operations: { 'audio.speech': { engine: 'local', units: 3, output_formats: ['mp3'], max_duration_seconds: 2 } },
    });
    const before = await remainingUnits(main.id);
    const cases: [TestKey, Record<string, unknown>, string][] = [
      [main, { text: 'x', voice: 'nova' }, 'voice'],
      [main, { text: 'x', language: 'de' }, 'language'],
      [only, { text: 'x', output_format: 'wav' }, 'output_format'],
      [only, { text: 'This sentence is long enough to take well over two seconds to say out loud, surely.' }, 'text'],
    ];
    for (const [key, body, path] of cases) {
      const result = await call(api, '/v1/audio/speech', body, { key: key.key });
      expectEnvelope(result, 422, 'validation_error');
      expect(issue(result)).toMatchObject({ path, code: 'not_allowed_by_package' });
    }
    // Language tags are case-insensitive (BCP 47): the package's `en-US` takes `EN-us`.
    for (const language of ['EN-us', 'EN', 'en-us']) {
      const result = await call(api, '/v1/audio/speech', { text: 'Hi.', language }, { key: main.key });
      expect(result.status, result.text).toBe(200);
    }
    expect(await remainingUnits(main.id)).toBe(before - 9);
    expect(estimateSpeechSeconds('This sentence is long enough to take well over two seconds to say out loud, surely.')).toBeGreaterThan(2);
    expect((await call(api, '/v1/audio/speech', { text: 'Hi.' }, { key: only.key })).status).toBe(200);
    expectEnvelope(await call(api, '/v1/audio/speech', { text: 'x', output_format: 'ogg' }, { key: main.key }), 422, 'validation_error');
    expect(await remainingUnits(main.id)).toBe(before - 9);
    expect(await remainingUnits(only.id)).toBe(1000 - 3);
  });

  it('the local engine speaks at most 10 minutes, whatever the package allows: longer is 422 before any audio, charging nothing', async () => {
    const open = await createTestKey({ operations: { 'audio.speech': { engine: 'local', units: 3 } } });
    const result = await call(api, '/v1/audio/speech', { text: 'a'.repeat(24_000) }, { key: open.key });
    expectEnvelope(result, 422, 'validation_error');
    expect(issue(result)).toMatchObject({
      path: 'text',
      code: 'not_allowed_by_package',
      message: "text: about 1680.3 s of speech; the local engine of this key's package speaks at most 600 s.",
    });
    expect(await remainingUnits(open.id)).toBe(1000);
  });
});

describe('audio.transcribe', () => {
  let audioId: string;
  beforeAll(async () => {
    audioId = await verifiedUpload(
      main.key,
      { purpose: 'audio_input', mime_type: 'audio/wav', filename: 'speech.wav' },
      await sampleWav('Hello there. This is a short test. Goodbye now.'),
    );
  });

  it('segments for a speech upload (default segment), empty with timestamps none; 4 units', async () => {
    const before = await remainingUnits(main.id);
    const result = await call(api, '/v1/audio/transcribe', { input_upload_id: audioId }, { key: main.key });
    expect(result.status, result.text).toBe(200);
    const body = audioTranscribeResponse.parse(result.json);
    expect(body.usage.charged_units).toBe(4);
    expect(body.output.segments.length).toBeGreaterThan(1);
    for (const segment of body.output.segments) expect(segment.end).toBeGreaterThan(segment.start);
    expect(body.output.text.length).toBeGreaterThan(0);

    const none = await call(
      api,
      '/v1/audio/transcribe',
      { input_upload_id: audioId, timestamps: 'none', language: 'en' },
      { key: main.key },
    );
    expect(none.status, none.text).toBe(200);
    expect(none.json.output.segments).toEqual([]);
    expect(await remainingUnits(main.id)).toBe(before - 8);
  });

  it('language/timestamps outside the package 422; upload rules 404/422; charge nothing', async () => {
    const before = await remainingUnits(main.id);
    const lang = await call(api, '/v1/audio/transcribe', { input_upload_id: audioId, language: 'fr' }, { key: main.key });
    expectEnvelope(lang, 422, 'validation_error');
    expect(issue(lang)).toMatchObject({ path: 'language', code: 'not_allowed_by_package' });

    const imageId = await verifiedUpload(main.key, { purpose: 'image_input', mime_type: 'image/png' }, await samplePng());
    const purpose = await call(api, '/v1/audio/transcribe', { input_upload_id: imageId }, { key: main.key });
    expectEnvelope(purpose, 422, 'validation_error');
    expect(issue(purpose)).toMatchObject({ path: 'input_upload_id', code: 'upload_wrong_purpose' });
    expectEnvelope(await call(api, '/v1/audio/transcribe', {}, { key: main.key }), 422, 'validation_error');
    expect(await remainingUnits(main.id)).toBe(before);

    const narrowUpload = await verifiedUpload(narrow.key, { purpose: 'audio_input', mime_type: 'audio/wav' }, await sampleWav('One.'));
    const ts = await call(api, '/v1/audio/transcribe', { input_upload_id: narrowUpload, timestamps: 'segment' }, { key: narrow.key });
    expectEnvelope(ts, 422, 'validation_error');
    expect(issue(ts)).toMatchObject({ path: 'timestamps', code: 'not_allowed_by_package' });
    const pending = await createUpload(main.key, { purpose: 'audio_input', mime_type: 'audio/wav' }, await sampleWav('Two.'));
    const both = await call(api, '/v1/audio/transcribe', { input_upload_id: pending.json.upload_id, language: 'fr' }, { key: main.key });
    expectEnvelope(both, 422, 'validation_error');
    expect(both.json.error.details.issues.map((i: { path: string; code: string }) => `${i.path} ${i.code}`)).toEqual([
      'language not_allowed_by_package',
      'input_upload_id upload_not_verified',
    ]);
    const dflt = await call(api, '/v1/audio/transcribe', { input_upload_id: narrowUpload }, { key: narrow.key });
    expect(dflt.json.output.segments).toEqual([]);
    expectEnvelope(await call(api, '/v1/audio/transcribe', { input_upload_id: audioId }, { key: narrow.key }), 404, 'not_found');
  });

  it('a video without sound is 422 undecodable_media that says so, and charges nothing', async () => {
    const silent = (await renderVideo({ prompt: 'no sound here', durationSeconds: 0.5 })).bytes;
    const videoId = await verifiedUpload(main.key, { purpose: 'video_input', mime_type: 'video/mp4', filename: 'silent.mp4' }, silent);
    const before = await remainingUnits(main.id);
    const result = await call(api, '/v1/audio/transcribe', { input_upload_id: videoId }, { key: main.key });
    expectEnvelope(result, 422, 'validation_error');
    expect(issue(result)).toEqual({
      path: 'input_upload_id',
      code: 'undecodable_media',
      message: 'input_upload_id: the input has no audio track.',
    });
    expect(await remainingUnits(main.id)).toBe(before);
  });
});

describe('signed /files URLs', () => {
  it('a tampered or expired URL is refused in the envelope; the right Content-Type is served', async () => {
    const result = await call(api, '/v1/images/generate', { prompt: 'sign me', output_format: 'jpeg' }, { key: main.key });
    const url = new URL(result.json.output.url);
    expect((await fetchOutput(url.toString())).status).toBe(200);

    const variants: ((u: URL) => void)[] = [
      (u) => u.searchParams.set('exp', String(Number(u.searchParams.get('exp')) + 3600)),
      (u) => u.searchParams.set('type', 'text/html'),
      (u) => u.searchParams.set('n', 'AAAAAAAAAAAA'),
      (u) => u.searchParams.delete('n'),
      (u) => {
        const sig = u.searchParams.get('sig')!;
        u.searchParams.set('sig', `${sig.startsWith('A') ? 'B' : 'A'}${sig.slice(1)}`); // always a different signature
      },
      (u) => {
        u.pathname = u.pathname.replace(/\.jpg$/, '.png');
      },
      (u) => u.searchParams.delete('sig'),
    ];
    for (const change of variants) {
      const tampered = new URL(url);
      change(tampered);
      const file = await fetchOutput(tampered.toString());
      expect(file.status).toBe(404);
      expect(file.json.error.code).toBe('not_found');
    }

    const key = verifyObjectUrl(url);
    if (!key.ok) throw new Error('own URL must verify');
    const expired = signObjectUrl('http://127.0.0.1:3999', key.key, 'image/jpeg', -1);
    const gone = await fetchOutput(expired.url);
    expect(gone.status).toBe(404);
    expect(gone.json.error.message).toMatch(/expired/);

    // Content-Type comes from the signed URL; the bytes are the stored object.
    await getObjectStore().put('outputs/test/served.wav', Buffer.from('RIFF....WAVE'), 'audio/wav');
    const served = await fetchOutput(signObjectUrl('http://127.0.0.1:3999', 'outputs/test/served.wav', 'audio/wav').url);
    expect(served.type).toBe('audio/wav');
    expect(served.bytes.toString()).toBe('RIFF....WAVE');
    const stored = await getObjectStore().get('outputs/test/served.wav');
    expect(sha256Hex(await buffer(stored!.body))).toBe(sha256Hex(Buffer.from('RIFF....WAVE')));
  });

  it('HEAD answers with the headers of GET and no body, and leaves no stored object open', async () => {
    await getObjectStore().put('outputs/test/large.bin', Buffer.alloc(1024 * 1024, 7), 'video/mp4');
    const url = signObjectUrl('http://127.0.0.1:3999', 'outputs/test/large.bin', 'video/mp4').url;
    const openFiles = () => readdirSync('/proc/self/fd').length;
    const before = openFiles();
    for (let i = 0; i < 20; i++) {
      const head = await filesHead(new Request(url, { method: 'HEAD' }));
      expect(head.status).toBe(200);
      expect(head.body).toBeNull();
      expect(head.headers.get('content-length')).toBe(String(1024 * 1024));
      expect(head.headers.get('content-type')).toBe('video/mp4');
    }
    await new Promise((resolve) => setTimeout(resolve, 200)); // closing a file stream takes a turn of the loop
    expect(openFiles() - before).toBeLessThan(5);
  });
});
