import { describe, expect, it } from 'vitest';
import { planSpeech, synthesizeSpeech, wavFile } from '@/server/providers/local/speech';
import { FrameEnergyMeter, MediaDecodeError, transcribeAudio } from '@/server/providers/local/transcribe';
import { renderVideo } from '@/server/providers/local/video';
import { transcode } from './media-tools';

const TEXT = 'Hello world. This is a small test, of the local engine!';

/** The phrases a listener hears: words joined across pauses shorter than a quarter second. */
function expectedPhrases(text: string): { start: number; end: number }[] {
  const phrases: { start: number; end: number }[] = [];
  for (const word of planSpeech(text).words) {
    const start = word.start / 16_000;
    const end = word.end / 16_000;
    const last = phrases.at(-1);
    if (last && start - last.end < 0.25) last.end = end;
    else phrases.push({ start, end });
  }
  return phrases;
}

function expectSegmentsNear(segments: { start: number; end: number }[], tolerance: number) {
  const phrases = expectedPhrases(TEXT);
  expect(phrases).toHaveLength(3);
  expect(segments).toHaveLength(phrases.length);
  segments.forEach((segment, index) => {
    expect(Math.abs(segment.start - (phrases[index]?.start ?? NaN))).toBeLessThan(tolerance);
    expect(Math.abs(segment.end - (phrases[index]?.end ?? NaN))).toBeLessThan(tolerance);
  });
}

describe('local transcription engine', () => {
  it('finds the speech segments of a WAV where the phrases are, and says it cannot recognise words', async () => {
    const wav = await synthesizeSpeech({ text: TEXT, format: 'wav' });
    const result = await transcribeAudio({ bytes: wav.bytes, mimeType: 'audio/wav', timestamps: 'segment' });
    expectSegmentsNear(result.segments, 0.03);
    for (const segment of result.segments) {
      expect(Math.round(segment.start * 1000) / 1000).toBe(segment.start);
      expect(Math.round(segment.end * 1000) / 1000).toBe(segment.end);
      expect(segment.text).toBe(`[speech ${segment.start.toFixed(2)}–${segment.end.toFixed(2)} s]`);
    }
    expect(result.text).toMatch(
      /^\[local engine: 3 speech segments, \d+\.\d s of speech in 5\.2 s of audio; word recognition needs a provider engine\]$/,
    );
    expect(result.text).not.toMatch(/hello/i);
  });

  it('decodes MP3, M4A (audio/mp4) and WebM input too', async () => {
    const wav = (await synthesizeSpeech({ text: TEXT, format: 'wav' })).bytes;
    const mp3 = (await synthesizeSpeech({ text: TEXT, format: 'mp3' })).bytes;
    // MP3 and AAC add encoder delay, so allow a little more slack.
    expectSegmentsNear((await transcribeAudio({ bytes: mp3, mimeType: 'audio/mpeg', timestamps: 'segment' })).segments, 0.1);
    const m4a = await transcode(wav, ['-c:a', 'aac', '-b:a', '64k', '-f', 'ipod'], 'm4a');
    expectSegmentsNear((await transcribeAudio({ bytes: m4a, mimeType: 'audio/mp4', timestamps: 'segment' })).segments, 0.1);
    const webm = await transcode(wav, ['-c:a', 'libopus', '-b:a', '48k', '-f', 'webm'], 'webm');
    expectSegmentsNear((await transcribeAudio({ bytes: webm, mimeType: 'video/webm', timestamps: 'segment' })).segments, 0.1);
  });

  it('finds no speech in silence or in very quiet noise', async () => {
    const silence = wavFile(Buffer.alloc(16_000 * 2 * 3), 16_000);
    const result = await transcribeAudio({ bytes: silence, mimeType: 'audio/x-wav', timestamps: 'segment' });
    expect(result).toEqual({
      text: '[local engine: no speech detected in 3.0 s of audio; word recognition needs a provider engine]',
      segments: [],
      usage: { audioSeconds: 3 }, // the local engine's own figure for the usage event
    });
    // Deterministic hiss around -60 dBFS.
    const hiss = Buffer.alloc(16_000 * 2 * 2);
    let state = 12345;
    for (let i = 0; i < hiss.length / 2; i += 1) {
      state = (state * 1103515245 + 12345) >>> 0;
      hiss.writeInt16LE(((state >>> 16) % 64) - 32, i * 2);
    }
    expect((await transcribeAudio({ bytes: wavFile(hiss, 16_000), mimeType: 'audio/wav', timestamps: 'segment' })).segments).toEqual([]);
  });

  it('hears a steady hum as one segment, however little its level wanders', async () => {
    // 500 Hz for 10 s whose level drifts by 1% over 5 s: a recording with no quiet part.
    const seconds = 10;
    const hum = Buffer.alloc(16_000 * 2 * seconds);
    for (let i = 0; i < hum.length / 2; i += 1) {
      const t = i / 16_000;
      const level = 4000 * (1 + 0.01 * Math.sin(2 * Math.PI * 0.2 * t));
      hum.writeInt16LE(Math.round(level * Math.sin(2 * Math.PI * 500 * t)), i * 2);
    }
    const result = await transcribeAudio({ bytes: wavFile(hum, 16_000), mimeType: 'audio/wav', timestamps: 'segment' });
    expect(result.segments.map(({ start, end }) => ({ start, end }))).toEqual([{ start: 0, end: seconds }]);
  });

  it("returns no segments with timestamps 'none' but still summarises", async () => {
    const wav = await synthesizeSpeech({ text: TEXT, format: 'wav' });
    const result = await transcribeAudio({ bytes: wav.bytes, mimeType: 'audio/wav', timestamps: 'none' });
    expect(result.segments).toEqual([]);
    expect(result.text).toMatch(/3 speech segments/);
  });

  it('throws MediaDecodeError for undecodable bytes, unsupported types and video without audio', async () => {
    await expect(
      transcribeAudio({ bytes: Buffer.from('just some text'), mimeType: 'audio/mpeg', timestamps: 'segment' }),
    ).rejects.toBeInstanceOf(MediaDecodeError);
    const wav = (await synthesizeSpeech({ text: 'hi', format: 'wav' })).bytes;
    await expect(transcribeAudio({ bytes: wav, mimeType: 'audio/flac', timestamps: 'segment' })).rejects.toBeInstanceOf(MediaDecodeError);
    const silentVideo = (await renderVideo({ prompt: 'no sound here', durationSeconds: 0.5 })).bytes;
    await expect(transcribeAudio({ bytes: silentVideo, mimeType: 'video/mp4', timestamps: 'segment' })).rejects.toThrow(
      new MediaDecodeError('The input has no audio track.'),
    );
    await expect(transcribeAudio({ bytes: Buffer.from('just some text'), mimeType: 'audio/mpeg', timestamps: 'segment' })).rejects.toThrow(
      'The input could not be decoded as audio.',
    );
  });

  it('stops decoding at more audio than a file of its size can hold: a header claiming 1 Hz made 28 KB into 4 hours of resampling (outside audit)', async () => {
    const noise = Buffer.from(Array.from({ length: 28_000 }, (_, index) => (index * 37) % 256));
    const refusal = new MediaDecodeError(
      'The input decodes to over 226 s of audio from 28044 bytes, more than a recording of its size holds.',
    );
    await expect(transcribeAudio({ bytes: wavFile(noise, 1), mimeType: 'audio/wav', timestamps: 'segment' })).rejects.toThrow(refusal);
    // Whatever ffmpeg's log says: a tag's key is printed unescaped, and may pose as a 16 kHz stream.
    const tagged = await transcode(
      wavFile(noise, 1),
      ['-c', 'copy', '-metadata', 'x\n  Stream #0:0: Audio: pcm_s16le, 16000 Hz=y', '-f', 'wav'],
      'wav',
    );
    await expect(transcribeAudio({ bytes: tagged, mimeType: 'audio/wav', timestamps: 'segment' })).rejects.toThrow(
      /more than a recording of its size holds/,
    );
    // Real recordings, at their lowest rates, are far within it.
    const telephone = await transcribeAudio({ bytes: wavFile(noise, 8000), mimeType: 'audio/wav', timestamps: 'segment' });
    expect(telephone.text).toContain('1.8 s of audio');
    const lowBitrate = await transcode(wavFile(noise, 8000), ['-c:a', 'libmp3lame', '-b:a', '8k', '-ar', '8000', '-f', 'mp3'], 'mp3');
    expect((await transcribeAudio({ bytes: lowBitrate, mimeType: 'audio/mpeg', timestamps: 'segment' })).text).toMatch(/1\.\d s of audio/);
  });
});

describe('FrameEnergyMeter', () => {
  it('gives the same frame RMS however the PCM is cut into chunks (odd byte counts included)', () => {
    const pcm = Buffer.alloc(2 * 1_000);
    for (let i = 0; i < 1_000; i++) pcm.writeInt16LE(Math.round(Math.sin(i / 7) * (i % 300) * 90), i * 2);
    const whole = new FrameEnergyMeter(160);
    whole.push(pcm);
    expect(whole.sampleCount).toBe(1_000);
    expect(whole.frameRms()).toHaveLength(6); // the partial seventh frame is left out
    const frame0 = Math.sqrt(Array.from({ length: 160 }, (_, i) => (pcm.readInt16LE(i * 2) / 32768) ** 2).reduce((a, b) => a + b) / 160);
    expect(whole.frameRms()[0]).toBeCloseTo(frame0, 12);
    for (const size of [1, 3, 7, 161, 333]) {
      const chunked = new FrameEnergyMeter(160);
      for (let offset = 0; offset < pcm.length; offset += size) chunked.push(pcm.subarray(offset, offset + size));
      expect(chunked.sampleCount).toBe(1_000);
      expect(Array.from(chunked.frameRms())).toEqual(Array.from(whole.frameRms()));
    }
  });

  it('grows past its first allocation', () => {
    const meter = new FrameEnergyMeter(1);
    meter.push(Buffer.alloc(2 * 10_000, 0x10));
    expect(meter.frameRms()).toHaveLength(10_000);
  });
});
