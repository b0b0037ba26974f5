// Local transcription engine: it cannot recognise words, and says so. It decodes the audio with
// ffmpeg and reports where sound is, by short-time energy, as timed segments.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FfmpegError, runFfmpeg } from './ffmpeg';
import { MediaDecodeError } from './media-decode-error';

export { MediaDecodeError };

export interface TranscribeAudioInput {
  bytes: Buffer;
  mimeType: string;
  language?: string;
  timestamps: 'none' | 'segment';
}

export interface TranscriptSegment {
  start: number;
  end: number;
  text: string;
}

export interface Transcript {
  text: string;
  segments: TranscriptSegment[];
}

export const TRANSCRIBE_MIME_TYPES = ['audio/mpeg', 'audio/wav', 'audio/x-wav', 'audio/mp4', 'video/mp4', 'video/webm'] as const;
// MP4 keeps its index (moov) wherever the writer put it, often at the end: ffmpeg must seek.
const NEEDS_SEEKABLE_FILE = new Set(['audio/mp4', 'video/mp4']);

const SAMPLE_RATE = 16_000;
const FRAME_SAMPLES = 160; // 10 ms
const FRAME_SECONDS = FRAME_SAMPLES / SAMPLE_RATE;
const ABSOLUTE_FLOOR = 0.003; // about -50 dBFS: quieter than this is silence whatever the file
const NOISE_FLOOR = 1e-4;
const MIN_GAP_SECONDS = 0.25; // shorter pauses are inside a phrase
const MIN_SEGMENT_SECONDS = 0.05; // shorter bursts are clicks

export async function transcribeAudio(input: TranscribeAudioInput): Promise<Transcript> {
  const pcm = await decodeToPcm(input.bytes, input.mimeType);
  // Int16Array needs an even byte offset; copy in the rare case the Buffer sits at an odd one.
  const aligned = pcm.byteOffset % 2 === 0 ? pcm : Buffer.from(pcm);
  const samples = new Int16Array(aligned.buffer, aligned.byteOffset, Math.floor(aligned.length / 2));
  const found = detectSpeechSegments(samples, SAMPLE_RATE);
  const total = samples.length / SAMPLE_RATE;
  const speech = found.reduce((sum, s) => sum + (s.end - s.start), 0);
  const text =
    found.length === 0
      ? `[local engine: no speech detected in ${total.toFixed(1)} s of audio; word recognition needs a provider engine]`
      : `[local engine: ${found.length} speech segment${found.length === 1 ? '' : 's'}, ${speech.toFixed(1)} s of speech ` +
        `in ${total.toFixed(1)} s of audio; word recognition needs a provider engine]`;
  const segments =
    input.timestamps === 'segment'
      ? found.map((s) => ({ ...s, text: `[speech ${s.start.toFixed(2)}–${s.end.toFixed(2)} s]` }))
      : [];
  return { text, segments };
}

/** Mono 16 kHz signed 16-bit little-endian PCM of the first audio stream. */
export async function decodeToPcm(bytes: Buffer, mimeType: string): Promise<Buffer> {
  const mime = mimeType.split(';')[0]?.trim().toLowerCase() ?? '';
  if (!(TRANSCRIBE_MIME_TYPES as readonly string[]).includes(mime)) {
    throw new MediaDecodeError(`The local engine cannot decode ${mime || 'this media type'}.`);
  }
  const output = ['-map', '0:a:0', '-vn', '-ac', '1', '-ar', String(SAMPLE_RATE), '-f', 's16le', 'pipe:1'];
  const options = { timeoutMs: 300_000, maxOutputBytes: SAMPLE_RATE * 2 * 60 * 60 * 4 }; // up to 4 h
  let folder: string | undefined;
  try {
    if (!NEEDS_SEEKABLE_FILE.has(mime)) {
      return (await runFfmpeg(['-loglevel', 'error', '-i', 'pipe:0', ...output], { ...options, input: bytes })).stdout;
    }
    folder = await mkdtemp(join(tmpdir(), 'wgs-transcribe-'));
    const file = join(folder, 'input.mp4');
    await writeFile(file, bytes);
    return (await runFfmpeg(['-loglevel', 'error', '-i', file, ...output], options)).stdout;
  } catch (error) {
    if (error instanceof FfmpegError) {
      throw new MediaDecodeError('The input could not be decoded as audio.', { cause: error });
    }
    throw error;
  } finally {
    if (folder) await rm(folder, { recursive: true, force: true });
  }
}

/**
 * Spans of sound by frame RMS. The threshold sits 30% of the way (in dB) from the quiet floor
 * of the recording to its loud peak, never below about -50 dBFS; nearby spans are merged.
 */
export function detectSpeechSegments(samples: Int16Array, sampleRate: number): { start: number; end: number }[] {
  const frameSamples = Math.round(sampleRate * FRAME_SECONDS);
  const frameSeconds = frameSamples / sampleRate;
  const frameCount = Math.floor(samples.length / frameSamples);
  if (frameCount === 0) return [];
  const rms = new Float64Array(frameCount);
  for (let frame = 0; frame < frameCount; frame += 1) {
    let sum = 0;
    for (let i = frame * frameSamples; i < (frame + 1) * frameSamples; i += 1) {
      const value = (samples[i] ?? 0) / 32768;
      sum += value * value;
    }
    rms[frame] = Math.sqrt(sum / frameSamples);
  }
  const sorted = Float64Array.from(rms).sort();
  const noise = Math.max(NOISE_FLOOR, percentile(sorted, 0.1));
  const peak = Math.max(NOISE_FLOOR, percentile(sorted, 0.99));
  const threshold = Math.max(ABSOLUTE_FLOOR, noise * (peak / noise) ** 0.3);

  const runs: { first: number; last: number }[] = [];
  for (let frame = 0; frame < frameCount; frame += 1) {
    if ((rms[frame] ?? 0) < threshold) continue;
    const previous = runs.at(-1);
    if (previous && (frame - previous.last - 1) * frameSeconds < MIN_GAP_SECONDS) previous.last = frame;
    else runs.push({ first: frame, last: frame });
  }
  const duration = samples.length / sampleRate;
  return runs
    .filter((run) => (run.last - run.first + 1) * frameSeconds >= MIN_SEGMENT_SECONDS)
    .map((run) => ({
      start: roundMs(run.first * frameSeconds),
      end: roundMs(Math.min(duration, (run.last + 1) * frameSeconds)),
    }));
}

function percentile(sorted: Float64Array, fraction: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(fraction * sorted.length))] ?? 0;
}

function roundMs(seconds: number): number {
  return Math.round(seconds * 1000) / 1000;
}
