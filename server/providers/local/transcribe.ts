// Local transcription engine: it cannot recognise words, and says so. It decodes the audio with
// ffmpeg and reports where sound is, by short-time energy, as timed segments.
import { decodeCustomerMedia, FfmpegError } from './ffmpeg';
import { audioDecodeFailure, MediaDecodeError } from './media-decode-error';

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
  /** Seconds of audio heard. */
  usage?: { audioSeconds: number };
}

export const TRANSCRIBE_MIME_TYPES = ['audio/mpeg', 'audio/wav', 'audio/x-wav', 'audio/mp4', 'video/mp4', 'video/webm'] as const;

const SAMPLE_RATE = 16_000;
const FRAME_SAMPLES = 160; // 10 ms
const FRAME_SECONDS = FRAME_SAMPLES / SAMPLE_RATE;
const ABSOLUTE_FLOOR = 0.003; // about -50 dBFS: quieter than this is silence whatever the file
const NOISE_FLOOR = 1e-4;
const MIN_GAP_SECONDS = 0.25; // shorter pauses are inside a phrase
const MIN_SEGMENT_SECONDS = 0.05; // shorter bursts are clicks

export async function transcribeAudio(input: TranscribeAudioInput): Promise<Transcript> {
  const energy = await decodeFrameEnergy(input.bytes, input.mimeType);
  const total = energy.sampleCount / SAMPLE_RATE;
  const found = speechSegments(energy.frameRms(), FRAME_SECONDS, total);
  const speech = found.reduce((sum, s) => sum + (s.end - s.start), 0);
  const text =
    found.length === 0
      ? `[local engine: no speech detected in ${total.toFixed(1)} s of audio; word recognition needs a provider engine]`
      : `[local engine: ${found.length} speech segment${found.length === 1 ? '' : 's'}, ${speech.toFixed(1)} s of speech ` +
        `in ${total.toFixed(1)} s of audio; word recognition needs a provider engine]`;
  const segments =
    input.timestamps === 'segment' ? found.map((s) => ({ ...s, text: `[speech ${s.start.toFixed(2)}–${s.end.toFixed(2)} s]` })) : [];
  return { text, segments, usage: { audioSeconds: Math.round(total * 1000) / 1000 } };
}

/**
 * The RMS of each 10 ms frame of 16-bit little-endian mono PCM, taken as the chunks arrive: the
 * decoded audio is never held whole (4 h of it would be 460 MB; its frames' RMS are 11 MB). A
 * last partial frame is left out.
 */
export class FrameEnergyMeter {
  private rms = new Float64Array(4096);
  private frames = 0;
  private sum = 0;
  private inFrame = 0;
  private oddByte: Buffer | undefined;
  sampleCount = 0;

  constructor(private readonly frameSamples: number) {}

  push(chunk: Buffer): void {
    const bytes = this.oddByte ? Buffer.concat([this.oddByte, chunk]) : chunk;
    const whole = bytes.length - (bytes.length % 2);
    for (let offset = 0; offset < whole; offset += 2) {
      const value = bytes.readInt16LE(offset) / 32768;
      this.sum += value * value;
      if (++this.inFrame === this.frameSamples) {
        this.addFrame(Math.sqrt(this.sum / this.frameSamples));
        this.sum = 0;
        this.inFrame = 0;
      }
    }
    this.sampleCount += whole / 2;
    this.oddByte = whole < bytes.length ? Buffer.from(bytes.subarray(whole)) : undefined;
  }

  frameRms(): Float64Array {
    return this.rms.subarray(0, this.frames);
  }

  private addFrame(value: number): void {
    if (this.frames === this.rms.length) {
      const grown = new Float64Array(this.rms.length * 2);
      grown.set(this.rms);
      this.rms = grown;
    }
    this.rms[this.frames++] = value;
  }
}

/** The longest recording the local engine transcribes: 4 hours of its 16 kHz samples. */
const MAX_SECONDS = 4 * 60 * 60;
/**
 * The most decoded audio a byte of input may yield, with some slack for a short file. Real codecs
 * stay under 50 bytes of 16 kHz samples a byte (MP3 at 8 kb/s: 32); a header that lies about its
 * sample rate (1 Hz, resampled to 16 kHz) made 28 KB into 4 hours of work. What its size cannot
 * hold is refused as ffmpeg produces it, whatever the header or the log claims.
 */
const OUTPUT_BYTES_PER_INPUT_BYTE = 256;
const OUTPUT_SLACK_BYTES = 64 * 1024;

/** Frame energies of the first audio stream, decoded to mono 16 kHz 16-bit PCM by ffmpeg. */
export async function decodeFrameEnergy(bytes: Buffer, mimeType: string): Promise<FrameEnergyMeter> {
  const mime = mimeType.split(';')[0]?.trim().toLowerCase() ?? '';
  if (!(TRANSCRIBE_MIME_TYPES as readonly string[]).includes(mime)) {
    throw new MediaDecodeError(`The local engine cannot decode ${mime || 'this media type'}.`);
  }
  const meter = new FrameEnergyMeter(FRAME_SAMPLES);
  const output = ['-map', '0:a:0', '-vn', '-ac', '1', '-ar', String(SAMPLE_RATE), '-f', 's16le', 'pipe:1'];
  const longest = SAMPLE_RATE * 2 * MAX_SECONDS;
  const plausible = bytes.length * OUTPUT_BYTES_PER_INPUT_BYTE + OUTPUT_SLACK_BYTES;
  const options = { timeoutMs: 300_000, maxOutputBytes: Math.min(longest, plausible), onOutput: (chunk: Buffer) => meter.push(chunk) };
  try {
    await decodeCustomerMedia(bytes, mime, output, options);
    return meter;
  } catch (error) {
    if (error instanceof FfmpegError && error.outputLimited) {
      if (plausible < longest) {
        const seconds = Math.floor(plausible / (SAMPLE_RATE * 2));
        throw new MediaDecodeError(
          `The input decodes to over ${seconds} s of audio from ${bytes.length} bytes, more than a recording of its size holds.`,
        );
      }
      throw new MediaDecodeError(`The recording is longer than the ${MAX_SECONDS / 3600} hours the local engine transcribes.`);
    }
    throw audioDecodeFailure(error);
  }
}

/**
 * Spans of sound by frame RMS. The threshold sits 30% of the way (in dB) from the quiet floor
 * of the recording to its loud peak, never below about -50 dBFS; nearby spans are merged. A
 * recording whose quietest tenth is within 6 dB of its peak (a steady hum) has no quiet floor:
 * a threshold between two near-equal levels would cut it wherever its level wanders.
 */
export function speechSegments(rms: Float64Array, frameSeconds: number, duration: number): { start: number; end: number }[] {
  const frameCount = rms.length;
  if (frameCount === 0) return [];
  const sorted = Float64Array.from(rms).sort();
  const noise = Math.max(NOISE_FLOOR, percentile(sorted, 0.1));
  const peak = Math.max(NOISE_FLOOR, percentile(sorted, 0.99));
  const threshold = peak < 2 * noise ? ABSOLUTE_FLOOR : Math.max(ABSOLUTE_FLOOR, noise * (peak / noise) ** 0.3);

  const runs: { first: number; last: number }[] = [];
  for (let frame = 0; frame < frameCount; frame += 1) {
    if ((rms[frame] ?? 0) < threshold) continue;
    const previous = runs.at(-1);
    if (previous && (frame - previous.last - 1) * frameSeconds < MIN_GAP_SECONDS) previous.last = frame;
    else runs.push({ first: frame, last: frame });
  }
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
