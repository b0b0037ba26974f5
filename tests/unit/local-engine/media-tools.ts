// Test helpers: decode and inspect media with ffmpeg, independently of the code under test's
// own assumptions (files are written to disk and probed the way any player would open them).
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runFfmpeg } from '@/server/providers/local/ffmpeg';

export async function withTempDir<T>(run: (dir: string) => Promise<T>): Promise<T> {
  const dir = await mkdtemp(join(tmpdir(), 'wgs-local-test-'));
  try {
    return await run(dir);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** `ffmpeg -i file -f null -`: decodes every frame; rejects if the file is not valid. */
export function probe(bytes: Buffer, extension: string): Promise<string> {
  return withTempDir(async (dir) => {
    const file = join(dir, `input.${extension}`);
    await writeFile(file, bytes);
    return (await runFfmpeg(['-i', file, '-f', 'null', '-'])).stderr;
  });
}

/** Decoded audio as 16 kHz mono 16-bit samples. */
export async function decodeAudio(bytes: Buffer, extension: string): Promise<Int16Array> {
  const pcm = await withTempDir(async (dir) => {
    const file = join(dir, `input.${extension}`);
    await writeFile(file, bytes);
    return (await runFfmpeg(['-loglevel', 'error', '-i', file, '-ac', '1', '-ar', '16000', '-f', 's16le', 'pipe:1'])).stdout;
  });
  return new Int16Array(Uint8Array.from(pcm).buffer);
}

/** Decoded video frames as raw RGB24. */
export async function decodeFrames(bytes: Buffer, width: number, height: number): Promise<Buffer[]> {
  const raw = await withTempDir(async (dir) => {
    const file = join(dir, 'input.mp4');
    await writeFile(file, bytes);
    return (await runFfmpeg(['-loglevel', 'error', '-i', file, '-f', 'rawvideo', '-pix_fmt', 'rgb24', 'pipe:1'])).stdout;
  });
  const size = width * height * 3;
  if (raw.length % size !== 0) throw new Error(`decoded ${raw.length} bytes, not whole ${width}x${height} frames`);
  return Array.from({ length: raw.length / size }, (_, index) => raw.subarray(index * size, (index + 1) * size));
}

/** Re-encode a WAV into another container with ffmpeg, e.g. ['-c:a', 'aac', '-f', 'ipod']. */
export function transcode(wav: Buffer, outputArgs: string[], extension: string): Promise<Buffer> {
  return withTempDir(async (dir) => {
    const input = join(dir, 'input.wav');
    const output = join(dir, `output.${extension}`);
    await writeFile(input, wav);
    await runFfmpeg(['-loglevel', 'error', '-i', input, ...outputArgs, '-y', output]);
    return readFile(output);
  });
}

export interface WavInfo {
  riffSize: number;
  format: number;
  channels: number;
  sampleRate: number;
  byteRate: number;
  blockAlign: number;
  bitsPerSample: number;
  dataSize: number;
  samples: Int16Array;
}

export function parseWav(bytes: Buffer): WavInfo {
  if (bytes.toString('ascii', 0, 4) !== 'RIFF' || bytes.toString('ascii', 8, 12) !== 'WAVE') throw new Error('not RIFF/WAVE');
  if (bytes.toString('ascii', 12, 16) !== 'fmt ' || bytes.readUInt32LE(16) !== 16) throw new Error('unexpected fmt chunk');
  if (bytes.toString('ascii', 36, 40) !== 'data') throw new Error('no data chunk at 36');
  const dataSize = bytes.readUInt32LE(40);
  return {
    riffSize: bytes.readUInt32LE(4),
    format: bytes.readUInt16LE(20),
    channels: bytes.readUInt16LE(22),
    sampleRate: bytes.readUInt32LE(24),
    byteRate: bytes.readUInt32LE(28),
    blockAlign: bytes.readUInt16LE(32),
    bitsPerSample: bytes.readUInt16LE(34),
    dataSize,
    samples: new Int16Array(Uint8Array.from(bytes.subarray(44, 44 + dataSize)).buffer),
  };
}

export function rms(samples: Int16Array, start = 0, end = samples.length): number {
  let sum = 0;
  for (let i = start; i < end; i += 1) sum += ((samples[i] ?? 0) / 32768) ** 2;
  return Math.sqrt(sum / Math.max(1, end - start));
}

export function meanAbsDifference(a: Buffer, b: Buffer): number {
  let sum = 0;
  for (let i = 0; i < a.length; i += 1) sum += Math.abs((a[i] ?? 0) - (b[i] ?? 0));
  return sum / a.length;
}
