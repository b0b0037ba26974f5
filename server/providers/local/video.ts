// Local video engine: the prompt's scene (see scene-svg.ts) animated, each frame drawn with sharp
// and piped raw to ffmpeg for H.264. Same prompt and input, same frames.
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadSharp } from '../load-sharp';
import { decodeCustomerMedia, FfmpegError, runFfmpeg } from './ffmpeg';
import { openInputImage } from './input-image';
import { MediaDecodeError } from './media-decode-error';
import { buildScene, sceneSvg, type Scene } from './scene-svg';

export interface RenderVideoInput {
  prompt: string;
  inputImage?: Buffer;
  durationSeconds?: number;
}

export interface RenderedVideo {
  bytes: Buffer;
  mimeType: 'video/mp4';
  /** Its length in seconds. */
  seconds: number;
}

export const VIDEO_WIDTH = 320;
export const VIDEO_HEIGHT = 240;
export const VIDEO_FPS = 12;
const MAX_SECONDS = 60;

export async function renderVideo(input: RenderVideoInput): Promise<RenderedVideo> {
  const seconds = input.durationSeconds ?? 2;
  if (!Number.isFinite(seconds) || seconds <= 0 || seconds > MAX_SECONDS) {
    throw new RangeError(`durationSeconds must be above 0 and at most ${MAX_SECONDS}.`);
  }
  const frameCount = Math.max(1, Math.round(seconds * VIDEO_FPS));
  const scene = buildScene(input.prompt);
  const base = input.inputImage ? await decodeBase(input.inputImage) : undefined;

  // +faststart rewrites the file to put the index first, which needs a seekable output.
  const folder = await mkdtemp(join(tmpdir(), 'wgs-video-'));
  try {
    const output = join(folder, 'out.mp4');
    await runFfmpeg(
      [
        '-loglevel',
        'error',
        '-f',
        'rawvideo',
        '-pix_fmt',
        'rgb24',
        '-s',
        `${VIDEO_WIDTH}x${VIDEO_HEIGHT}`,
        '-r',
        String(VIDEO_FPS),
        '-i',
        'pipe:0',
        '-c:v',
        'libx264',
        '-preset',
        'veryfast',
        '-crf',
        '23',
        '-pix_fmt',
        'yuv420p',
        '-movflags',
        '+faststart',
        '-map_metadata',
        '-1',
        '-fflags',
        '+bitexact',
        '-flags:v',
        '+bitexact',
        '-f',
        'mp4',
        '-y',
        output,
      ],
      { input: renderFrames(scene, frameCount, base), timeoutMs: 180_000 },
    );
    return { bytes: await readFile(output), mimeType: 'video/mp4', seconds: frameCount / VIDEO_FPS };
  } finally {
    await rm(folder, { recursive: true, force: true });
  }
}

/** The first frame of an uploaded video as PNG, so a video input can seed renderVideo. */
export async function extractVideoFrame(bytes: Buffer, mimeType: string): Promise<Buffer> {
  const output = ['-map', '0:v:0', '-frames:v', '1', '-f', 'image2pipe', '-c:v', 'png', 'pipe:1'];
  let frame: Buffer;
  try {
    ({ stdout: frame } = await decodeCustomerMedia(bytes, mimeType, output, { timeoutMs: 60_000 }));
  } catch (error) {
    if (error instanceof FfmpegError) throw new MediaDecodeError('The input video could not be decoded.', { cause: error });
    throw error;
  }
  if (frame.length === 0) throw new MediaDecodeError('The input video has no decodable frame.');
  return frame;
}

async function decodeBase(bytes: Buffer): Promise<Buffer> {
  const input = await openInputImage(bytes);
  try {
    return await input.rotate().resize(VIDEO_WIDTH, VIDEO_HEIGHT, { fit: 'cover' }).removeAlpha().raw().toBuffer();
  } catch (error) {
    throw new MediaDecodeError('The input image could not be decoded.', { cause: error });
  }
}

/** Frames as raw RGB24, produced one at a time so long videos never sit in memory at once. */
async function* renderFrames(scene: Scene, frameCount: number, base: Buffer | undefined): AsyncGenerator<Buffer> {
  const sharp = await loadSharp();
  for (let frame = 0; frame < frameCount; frame += 1) {
    const time = frame / VIDEO_FPS;
    const svg = Buffer.from(sceneSvg(scene, VIDEO_WIDTH, VIDEO_HEIGHT, { time, background: !base }));
    const image = base
      ? sharp(base, { raw: { width: VIDEO_WIDTH, height: VIDEO_HEIGHT, channels: 3 } }).composite([{ input: svg, blend: 'over' }])
      : sharp(svg, { density: 72 }).resize(VIDEO_WIDTH, VIDEO_HEIGHT, { fit: 'fill' });
    yield await image.removeAlpha().raw().toBuffer();
  }
}
