import { synthesizeSpeech } from '@/server/providers/local/speech';
import { renderVideo } from '@/server/providers/local/video';
import { samplePng } from '../../storage/uploads';

// Real media for fakes to answer with: the gate checks magic bytes before it sells anything.

let cached: Promise<{ png: Buffer; mp3: Buffer; wav: Buffer }> | undefined;

export function mediaSamples(): Promise<{ png: Buffer; mp3: Buffer; wav: Buffer }> {
  cached ??= (async () => ({
    png: await samplePng(),
    mp3: (await synthesizeSpeech({ text: 'Hello there.', format: 'mp3' })).bytes,
    wav: (await synthesizeSpeech({ text: 'Hello there.', format: 'wav' })).bytes,
  }))();
  return cached;
}

let cachedMp4: Promise<Buffer> | undefined;

/** A real H.264 MP4 (the local engine's), for fakes of video APIs; made once per test file. */
export function sampleMp4(): Promise<Buffer> {
  cachedMp4 ??= renderVideo({ prompt: 'a lighthouse', durationSeconds: 1 }).then((video) => video.bytes);
  return cachedMp4;
}

let videoInstead: Buffer | undefined;

/** The video the fakes answer with: the sample MP4, or other bytes a test sets to see them refused. */
export function fakeVideo(): Promise<Buffer> {
  return videoInstead ? Promise.resolve(videoInstead) : sampleMp4();
}

/** Makes every fake answer `bytes` as its video (undefined: the sample MP4 again). */
export function setFakeVideo(bytes: Buffer | undefined): void {
  videoInstead = bytes;
}

export const FAKE_CODE = { code: 'export const answer = 42;', explanation: 'A constant holding the answer.' };
export const FAKE_TRANSCRIPT = { text: 'Hello there.', segments: [{ start: 0, end: 1.25, text: 'Hello there.' }] };
