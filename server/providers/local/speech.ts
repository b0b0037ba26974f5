// Local speech engine: not a voice, but honest, deterministic audio shaped like the text. Each
// word becomes a voiced tone (pitch from the word and the voice, one pulse per character) and
// spaces and punctuation become silences, so length and rhythm follow the text.
import { ProviderUnavailableError } from '../engine';
import { runFfmpeg } from './ffmpeg';
import { hash32 } from './seed';

export type SpeechFormat = 'wav' | 'mp3';

export interface SynthesizeSpeechInput {
  text: string;
  voice?: string;
  language?: string;
  format: SpeechFormat;
}

export interface SynthesizedSpeech {
  bytes: Buffer;
  mimeType: 'audio/wav' | 'audio/mpeg';
  durationSeconds: number;
}

export interface SpeechSpan {
  /** Sample offsets, end exclusive. */
  start: number;
  end: number;
  word: string;
}

export interface SpeechPlan {
  sampleRate: number;
  totalSamples: number;
  /** The voiced spans; everything between them is silence. */
  words: SpeechSpan[];
}

export const SPEECH_SAMPLE_RATE = 16_000;
const CHAR_SAMPLES = 0.07 * SPEECH_SAMPLE_RATE;
const EDGE_SAMPLES = 0.15 * SPEECH_SAMPLE_RATE;
const PAUSES: { pattern: RegExp; samples: number }[] = [
  { pattern: /^\s+/u, samples: 0.1 * SPEECH_SAMPLE_RATE },
  { pattern: /^[.!?;:…。！？；：]/u, samples: 0.4 * SPEECH_SAMPLE_RATE },
  { pattern: /^[,，、()[\]{}"“”«»—–-]/u, samples: 0.2 * SPEECH_SAMPLE_RATE },
];
const WORD = /^[\p{L}\p{N}][\p{L}\p{M}\p{N}'’]*/u;
const SPOKEN_CHAR = /[\p{L}\p{N}]/gu;
const OTHER_SAMPLES = 0.05 * SPEECH_SAMPLE_RATE;

/** Where each word sounds: the one length rule shared by synthesis and the estimate. */
export function planSpeech(text: string): SpeechPlan {
  const words: SpeechSpan[] = [];
  let cursor = EDGE_SAMPLES;
  let rest = text;
  while (rest.length > 0) {
    const word = WORD.exec(rest)?.[0];
    if (word) {
      const spoken = word.match(SPOKEN_CHAR)?.length ?? 1;
      words.push({ start: cursor, end: cursor + spoken * CHAR_SAMPLES, word });
      cursor += spoken * CHAR_SAMPLES;
      rest = rest.slice(word.length);
      continue;
    }
    const pause = PAUSES.map((p) => ({ match: p.pattern.exec(rest)?.[0], samples: p.samples })).find((p) => p.match);
    const consumed = pause?.match ?? String.fromCodePoint(rest.codePointAt(0) ?? 32);
    cursor += pause?.samples ?? OTHER_SAMPLES;
    rest = rest.slice(consumed.length);
  }
  return { sampleRate: SPEECH_SAMPLE_RATE, totalSamples: Math.round(cursor + EDGE_SAMPLES), words };
}

/** Seconds of audio synthesizeSpeech will produce, to enforce a package's duration limit first. */
export function estimateSpeechSeconds(text: string): number {
  return roundMs(planSpeech(text).totalSamples / SPEECH_SAMPLE_RATE);
}

export async function synthesizeSpeech(input: SynthesizeSpeechInput): Promise<SynthesizedSpeech> {
  const plan = planSpeech(input.text);
  const durationSeconds = roundMs(plan.totalSamples / SPEECH_SAMPLE_RATE);
  // Refused before any audio is made, where the engine was not the first (prepare checks the first: media.ts).
  if (durationSeconds > LOCAL_SPEECH_MAX_SECONDS) {
    throw new ProviderUnavailableError(`the local engine speaks at most ${LOCAL_SPEECH_MAX_SECONDS} s`, 5, { kind: 'rejected' });
  }
  if (input.format === 'wav') {
    // The samples are rendered behind room for the header: one buffer, not the PCM and a copy of it.
    const file = await renderPcm(plan, input.voice, WAV_HEADER_BYTES);
    writeWavHeader(file, SPEECH_SAMPLE_RATE);
    return { bytes: file, mimeType: 'audio/wav', durationSeconds };
  }
  const pcm = await renderPcm(plan, input.voice);
  const { stdout } = await runFfmpeg(
    [
      '-loglevel',
      'error',
      '-f',
      's16le',
      '-ar',
      String(SPEECH_SAMPLE_RATE),
      '-ac',
      '1',
      '-i',
      'pipe:0',
      // bitexact and no metadata: no encoder version string, so bytes depend only on the input.
      '-map_metadata',
      '-1',
      '-fflags',
      '+bitexact',
      '-flags:a',
      '+bitexact',
      '-c:a',
      'libmp3lame',
      '-b:a',
      '64k',
      '-f',
      'mp3',
      'pipe:1',
    ],
    { input: pcm, timeoutMs: 120_000 },
  );
  return { bytes: stdout, mimeType: 'audio/mpeg', durationSeconds };
}

/** The longest speech the local engine makes (a package may allow less): 10 minutes, 19 MB of PCM. */
export const LOCAL_SPEECH_MAX_SECONDS = 600;

/** One period of the voice's waveform (four harmonics), finely sampled: a lookup per sample instead of four sines. */
const WAVE_TABLE_SIZE = 4096;
const TWO_PI = 2 * Math.PI;
const WAVE_TABLE = Float64Array.from({ length: WAVE_TABLE_SIZE + 1 }, (_, k) => {
  const phase = (TWO_PI * k) / WAVE_TABLE_SIZE;
  return Math.sin(phase) + 0.5 * Math.sin(2 * phase) + 0.3 * Math.sin(3 * phase) + 0.15 * Math.sin(4 * phase);
});

/** The waveform at `phase` (0 to 2π), interpolated between its table's two nearest points. */
function waveAt(phase: number): number {
  const x = (phase / TWO_PI) * WAVE_TABLE_SIZE;
  const k = Math.floor(x);
  return WAVE_TABLE[k]! + (WAVE_TABLE[k + 1]! - WAVE_TABLE[k]!) * (x - k);
}

/** Samples rendered between two turns of the event loop (~4 ms of work): a long text never holds the thread. */
const SAMPLES_PER_TURN = 1 << 16;
const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

/** 16-bit little-endian mono PCM of the plan, after `offset` zero bytes (room for a header). */
export async function renderPcm(plan: SpeechPlan, voice?: string, offset = 0): Promise<Buffer> {
  const pcm = Buffer.alloc(offset + plan.totalSamples * 2);
  // The voice shifts every pitch by a fixed factor (0.7x to 1.5x), like a different speaker.
  const voiceFactor = voice ? 0.7 + ((hash32(`voice:${voice}`) % 1000) / 1000) * 0.8 : 1;
  const fade = Math.round(0.008 * plan.sampleRate);
  let sinceTurn = 0;
  for (const span of plan.words) {
    const base = (110 + ((hash32(span.word.toLowerCase()) % 1000) / 1000) * 140) * voiceFactor;
    // Each character bends the pitch a little and is one amplitude pulse: a syllable-like rhythm.
    const steps = Array.from(span.word.replace(/[^\p{L}\p{N}]/gu, ''), (char) => {
      const frequency = base * (1 + (((char.codePointAt(0) ?? 0) % 7) - 3) * 0.03);
      return (TWO_PI * frequency) / plan.sampleRate;
    });
    const length = span.end - span.start;
    let phase = 0;
    for (let i = 0; i < length; i += 1) {
      phase += steps[Math.min(steps.length - 1, Math.floor(i / CHAR_SAMPLES))] ?? 0;
      if (phase >= TWO_PI) phase -= TWO_PI;
      const within = (i % CHAR_SAMPLES) / CHAR_SAMPLES;
      const pulse = 0.65 + 0.35 * Math.sin(Math.PI * within);
      const edge = Math.min(1, i / fade, (length - 1 - i) / fade);
      const sample = Math.round((waveAt(phase) / 1.95) * pulse * edge * 0.5 * 32767);
      pcm.writeInt16LE(sample, offset + (span.start + i) * 2);
      if (++sinceTurn === SAMPLES_PER_TURN) {
        sinceTurn = 0;
        await nextTurn();
      }
    }
  }
  return pcm;
}

const WAV_HEADER_BYTES = 44;

/** A canonical 44-byte RIFF/WAVE header (PCM, 16-bit, mono) followed by the samples. */
export function wavFile(pcm: Buffer, sampleRate: number): Buffer {
  const file = Buffer.concat([Buffer.alloc(WAV_HEADER_BYTES), pcm]);
  writeWavHeader(file, sampleRate);
  return file;
}

/** Writes the header into the first 44 bytes of a WAV file whose samples follow them. */
function writeWavHeader(file: Buffer, sampleRate: number): void {
  const dataBytes = file.length - WAV_HEADER_BYTES;
  file.write('RIFF', 0, 'ascii');
  file.writeUInt32LE(36 + dataBytes, 4);
  file.write('WAVE', 8, 'ascii');
  file.write('fmt ', 12, 'ascii');
  file.writeUInt32LE(16, 16); // fmt chunk size
  file.writeUInt16LE(1, 20); // PCM
  file.writeUInt16LE(1, 22); // mono
  file.writeUInt32LE(sampleRate, 24);
  file.writeUInt32LE(sampleRate * 2, 28); // byte rate
  file.writeUInt16LE(2, 32); // block align
  file.writeUInt16LE(16, 34); // bits per sample
  file.write('data', 36, 'ascii');
  file.writeUInt32LE(dataBytes, 40);
}

function roundMs(seconds: number): number {
  return Math.round(seconds * 1000) / 1000;
}
