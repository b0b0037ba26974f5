// How long a recording or a video plays: an upload's, read before anyone is charged for it (a
// package's `max_input_seconds`), and a provider's answer's, when the provider reports no length (its
// cost is then estimated from it). A recording is measured by the samples its first audio stream
// decodes to, as transcription decodes it (the local engine counts samples too): a header's or its
// timestamps' claims count for nothing (squashed timestamps made 3 hours measure 30 s). A video by
// how far ffmpeg decoded its first video stream.
import { decodeCustomerMedia, FfmpegError } from './ffmpeg';
import { audioDecodeFailure, MediaDecodeError } from './media-decode-error';

/** The rate a recording is counted at: low, for a cheap resample; any rate counts the same seconds. */
const COUNTING_RATE = 8000;
const BYTES_PER_SECOND = COUNTING_RATE * 2; // mono 16-bit
/** The longest recording measured whole (a day); past it the answer is this. */
const LONGEST_SECONDS = 24 * 60 * 60;

const VIDEO_OUTPUT = ['-map', '0:v:0', '-an', '-progress', 'pipe:1', '-f', 'null', '-'];

/**
 * Seconds of the first audio (or video) stream, decoded as the engines decode it (its verified
 * type's demuxer: a file that another demuxer would read as a shorter one is measured as it plays).
 * Throws MediaDecodeError when there is none or it cannot be decoded.
 */
export async function readMediaSeconds(
  bytes: Buffer,
  mimeType: string,
  track: 'audio' | 'video' = 'audio',
  /** Decoding stops past this (a limit's check need not decode hours past it): the answer is then more than it. */
  stopAfterSeconds?: number,
): Promise<number> {
  try {
    if (track === 'video') return await videoSeconds(bytes, mimeType);
    return await recordingSeconds(bytes, mimeType, Math.min(stopAfterSeconds ?? LONGEST_SECONDS, LONGEST_SECONDS));
  } catch (error) {
    throw audioDecodeFailure(error);
  }
}

async function recordingSeconds(bytes: Buffer, mimeType: string, stopAfterSeconds: number): Promise<number> {
  const output = ['-map', '0:a:0', '-vn', '-ac', '1', '-ar', String(COUNTING_RATE), '-f', 's16le', 'pipe:1'];
  const maxOutputBytes = Math.ceil(stopAfterSeconds * BYTES_PER_SECOND);
  let produced = 0;
  try {
    await decodeCustomerMedia(bytes, mimeType, output, {
      timeoutMs: 120_000,
      maxOutputBytes,
      onOutput: (chunk) => (produced += chunk.length),
    });
  } catch (error) {
    // Decoding stopped at the limit: longer than it, which is all the caller asked.
    if (error instanceof FfmpegError && error.outputLimited) return (maxOutputBytes + 1) / BYTES_PER_SECOND;
    throw error;
  }
  if (produced === 0) throw new MediaDecodeError('The input could not be decoded as audio.');
  return produced / BYTES_PER_SECOND;
}

async function videoSeconds(bytes: Buffer, mimeType: string): Promise<number> {
  const { stdout } = await decodeCustomerMedia(bytes, mimeType, VIDEO_OUTPUT, { timeoutMs: 120_000, maxOutputBytes: 16 * 1024 * 1024 });
  // The progress report repeats `out_time_us=`; its last value is where decoding ended.
  const reported = [...stdout.toString('latin1').matchAll(/^out_time_us=(\d+)$/gm)].at(-1)?.[1];
  if (reported === undefined) throw new MediaDecodeError('The input could not be decoded as video.');
  return Number(reported) / 1_000_000;
}
