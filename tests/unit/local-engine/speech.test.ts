import { describe, expect, it } from 'vitest';
import { estimateSpeechSeconds, LOCAL_SPEECH_MAX_SECONDS, planSpeech, synthesizeSpeech } from '@/server/providers/local/speech';
import { decodeAudio, parseWav, probe, rms } from './media-tools';

const TEXT = 'Hello world. This is a small test, of the local engine!';

describe('local speech engine: WAV', () => {
  it('writes a valid 16-bit mono PCM RIFF file whose data size is samples * 2', async () => {
    const speech = await synthesizeSpeech({ text: TEXT, format: 'wav' });
    expect(speech.mimeType).toBe('audio/wav');
    const wav = parseWav(speech.bytes);
    expect(wav).toMatchObject({ format: 1, channels: 1, sampleRate: 16_000, byteRate: 32_000, blockAlign: 2, bitsPerSample: 16 });
    expect(wav.riffSize).toBe(speech.bytes.length - 8);
    expect(wav.dataSize).toBe(speech.bytes.length - 44);
    expect(wav.dataSize).toBe(wav.samples.length * 2);
    expect(speech.durationSeconds).toBeCloseTo(wav.samples.length / 16_000, 3);
    expect(speech.durationSeconds).toBe(estimateSpeechSeconds(TEXT));
    // An independent decoder agrees.
    expect(await probe(speech.bytes, 'wav')).toMatch(/Audio: pcm_s16le, 16000 Hz, mono/);
  });

  it('sounds where the words are and is silent in between', async () => {
    const { samples } = parseWav((await synthesizeSpeech({ text: TEXT, format: 'wav' })).bytes);
    const plan = planSpeech(TEXT);
    expect(plan.words.map((w) => w.word)).toEqual(['Hello', 'world', 'This', 'is', 'a', 'small', 'test', 'of', 'the', 'local', 'engine']);
    for (const word of plan.words) expect(rms(samples, word.start, word.end)).toBeGreaterThan(0.05);
    const gaps = plan.words.slice(1).map((word, index) => [plan.words[index]?.end ?? 0, word.start] as const);
    for (const [start, end] of gaps) expect(rms(samples, start, end)).toBe(0);
    expect(rms(samples, 0, plan.words[0]?.start)).toBe(0);
  });

  it('grows with the text and pauses longer at punctuation', () => {
    const lengths = ['Hi', 'Hi there', 'Hi there, how are you', 'Hi there, how are you today? Fine, thanks.'].map(estimateSpeechSeconds);
    for (let i = 1; i < lengths.length; i += 1) expect(lengths[i]).toBeGreaterThan(lengths[i - 1] ?? Infinity);
    expect(estimateSpeechSeconds('one. two')).toBeGreaterThan(estimateSpeechSeconds('one two'));
    // Roughly 0.06 to 0.08 s per spoken character in running text.
    const long = 'the quick brown fox jumps over the lazy dog '.repeat(20);
    expect(estimateSpeechSeconds(long) / long.length).toBeGreaterThan(0.05);
    expect(estimateSpeechSeconds(long) / long.length).toBeLessThan(0.09);
  });

  it('is deterministic, and the voice changes the pitch but not the timing', async () => {
    const a = await synthesizeSpeech({ text: TEXT, voice: 'alloy', format: 'wav' });
    const again = await synthesizeSpeech({ text: TEXT, voice: 'alloy', format: 'wav' });
    const b = await synthesizeSpeech({ text: TEXT, voice: 'onyx', format: 'wav' });
    expect(again.bytes.equals(a.bytes)).toBe(true);
    expect(b.bytes.length).toBe(a.bytes.length);
    const word = planSpeech(TEXT).words[0];
    if (!word) throw new Error('no words planned');
    const crossings = (samples: Int16Array) => {
      let count = 0;
      for (let i = word.start + 1; i < word.end; i += 1) if ((samples[i - 1] ?? 0) < 0 !== (samples[i] ?? 0) < 0) count += 1;
      return count;
    };
    const ratio = crossings(parseWav(b.bytes).samples) / crossings(parseWav(a.bytes).samples);
    expect(Math.abs(ratio - 1)).toBeGreaterThan(0.05);
  });
});

describe('local speech engine: MP3', () => {
  it('encodes MP3 that decodes back to audio as long as the WAV', async () => {
    const wav = await synthesizeSpeech({ text: TEXT, format: 'wav' });
    const mp3 = await synthesizeSpeech({ text: TEXT, format: 'mp3' });
    expect(mp3.mimeType).toBe('audio/mpeg');
    expect(mp3.durationSeconds).toBe(wav.durationSeconds);
    expect(await probe(mp3.bytes, 'mp3')).toMatch(/Audio: mp3, 16000 Hz, mono/);
    const decoded = await decodeAudio(mp3.bytes, 'mp3');
    expect(Math.abs(decoded.length / 16_000 - wav.durationSeconds)).toBeLessThan(0.15);
    // Lossy, but the loud parts stay loud: overall level within a few dB of the WAV.
    const ratio = rms(decoded) / rms(parseWav(wav.bytes).samples);
    expect(ratio).toBeGreaterThan(0.8);
    expect(ratio).toBeLessThan(1.25);

    const again = await synthesizeSpeech({ text: TEXT, format: 'mp3' });
    expect(again.bytes.equals(mp3.bytes)).toBe(true);
  });
});

describe('local speech engine: long texts (outside audit: 24,000 letters held the server thread 9 s)', () => {
  it('renders a long recording while the event loop keeps turning', async () => {
    const text = 'a'.repeat(4_000); // one word of 280 s: 4.5 M samples
    let turns = 0;
    const ticking = setInterval(() => (turns += 1), 0);
    try {
      const speech = await synthesizeSpeech({ text, format: 'wav' });
      expect(speech.durationSeconds).toBe(estimateSpeechSeconds(text));
      expect(parseWav(speech.bytes).samples.length).toBe(Math.round(speech.durationSeconds * 16_000));
    } finally {
      clearInterval(ticking);
    }
    expect(turns).toBeGreaterThan(10);
  });

  it(`refuses more than ${LOCAL_SPEECH_MAX_SECONDS} s of speech before making any audio`, async () => {
    const text = 'a.'.repeat(2_000); // 2,000 × (0.07 + 0.4) s
    expect(estimateSpeechSeconds(text)).toBeGreaterThan(LOCAL_SPEECH_MAX_SECONDS);
    await expect(synthesizeSpeech({ text, format: 'wav' })).rejects.toMatchObject({ name: 'ProviderUnavailableError', kind: 'rejected' });
  });
});
