// How long a recording or a video plays: an upload's, read before anyone is charged for it (a
// package's `max_input_seconds`), and a provider's answer's, when the provider reports no length (its
// cost is then estimated from it). The first audio (or video) stream is decoded to nowhere by ffmpeg,
// which reports how far it got: the real length, whatever the container's header claims.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runFfmpeg } from './ffmpeg';
import { audioDecodeFailure, MediaDecodeError } from './media-decode-error';

// MP4 keeps its index (moov) wherever the writer put it, often at the end: ffmpeg must seek.
const NEEDS_SEEKABLE_FILE = new Set(['audio/mp4', 'video/mp4']);
const OUTPUT = {
  audio: ['-map', '0:a:0', '-vn', '-progress', 'pipe:1', '-f', 'null', '-'],
  video: ['-map', '0:v:0', '-an', '-progress', 'pipe:1', '-f', 'null', '-'],
};

/** Seconds of the first audio (or video) stream. Throws MediaDecodeError when there is none or it cannot be decoded. */
export async function readMediaSeconds(bytes: Buffer, mimeType: string, track: 'audio' | 'video' = 'audio'): Promise<number> {
  const mime = mimeType.split(';')[0]?.trim().toLowerCase() ?? '';
  const options = { timeoutMs: 120_000, maxOutputBytes: 16 * 1024 * 1024 };
  let folder: string | undefined;
  try {
    let stdout: Buffer;
    if (!NEEDS_SEEKABLE_FILE.has(mime)) {
      ({ stdout } = await runFfmpeg(['-loglevel', 'error', '-nostats', '-i', 'pipe:0', ...OUTPUT[track]], { ...options, input: bytes }));
    } else {
      folder = await mkdtemp(join(tmpdir(), 'wgs-duration-'));
      const file = join(folder, 'input.mp4');
      await writeFile(file, bytes);
      ({ stdout } = await runFfmpeg(['-loglevel', 'error', '-nostats', '-i', file, ...OUTPUT[track]], options));
    }
    // The progress report repeats `out_time_us=`; its last value is where decoding ended.
    const reported = [...stdout.toString('latin1').matchAll(/^out_time_us=(\d+)$/gm)].at(-1)?.[1];
    if (reported === undefined) throw new MediaDecodeError(`The input could not be decoded as ${track}.`);
    return Number(reported) / 1_000_000;
  } catch (error) {
    throw audioDecodeFailure(error);
  } finally {
    if (folder) await rm(folder, { recursive: true, force: true });
  }
}
