// How long a recording or a video plays: an upload's, read before anyone is charged for it (a
// package's `max_input_seconds`), and a provider's answer's, when the provider reports no length (its
// cost is then estimated from it). The first audio (or video) stream is decoded to nowhere by ffmpeg,
// which reports how far it got: the real length, whatever the container's header claims.
import { decodeCustomerMedia } from './ffmpeg';
import { audioDecodeFailure, MediaDecodeError } from './media-decode-error';

const OUTPUT = {
  audio: ['-map', '0:a:0', '-vn', '-progress', 'pipe:1', '-f', 'null', '-'],
  video: ['-map', '0:v:0', '-an', '-progress', 'pipe:1', '-f', 'null', '-'],
};

/**
 * Seconds of the first audio (or video) stream, decoded as the engines decode it (its verified
 * type's demuxer: a file that another demuxer would read as a shorter one is measured as it plays).
 * Throws MediaDecodeError when there is none or it cannot be decoded.
 */
export async function readMediaSeconds(
  bytes: Buffer,
  mimeType: string,
  track: 'audio' | 'video' = 'audio',
  /** Decoding stops this far in (a limit's check need not decode hours past it); the answer is then at most this. */
  stopAfterSeconds?: number,
): Promise<number> {
  const output = stopAfterSeconds === undefined ? OUTPUT[track] : ['-t', String(stopAfterSeconds), ...OUTPUT[track]];
  try {
    const { stdout } = await decodeCustomerMedia(bytes, mimeType, output, { timeoutMs: 120_000, maxOutputBytes: 16 * 1024 * 1024 });
    // The progress report repeats `out_time_us=`; its last value is where decoding ended.
    const reported = [...stdout.toString('latin1').matchAll(/^out_time_us=(\d+)$/gm)].at(-1)?.[1];
    if (reported === undefined) throw new MediaDecodeError(`The input could not be decoded as ${track}.`);
    return Number(reported) / 1_000_000;
  } catch (error) {
    throw audioDecodeFailure(error);
  }
}
