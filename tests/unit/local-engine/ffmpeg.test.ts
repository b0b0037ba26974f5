import { describe, expect, it } from 'vitest';
import { FfmpegError, runFfmpeg } from '@/server/providers/local/ffmpeg';

describe('runFfmpeg', () => {
  it('pipes stdin to stdout', async () => {
    const input = Buffer.alloc(16_000 * 2, 7); // 1 s of 16 kHz 16-bit samples
    const { stdout } = await runFfmpeg(
      ['-loglevel', 'error', '-f', 's16le', '-ar', '16000', '-ac', '1', '-i', 'pipe:0', '-ar', '8000', '-f', 's16le', 'pipe:1'],
      {
        input,
      },
    );
    expect(stdout.length).toBeGreaterThan(15_000);
    expect(stdout.length).toBeLessThan(17_000);
  });

  it('streams chunks from an async iterable', async () => {
    async function* chunks() {
      for (let i = 0; i < 50; i += 1) yield Buffer.alloc(16_000, i);
    }
    const { stdout } = await runFfmpeg(
      ['-loglevel', 'error', '-f', 'u8', '-ar', '8000', '-ac', '1', '-i', 'pipe:0', '-f', 'u8', 'pipe:1'],
      {
        input: chunks(),
      },
    );
    expect(stdout.length).toBe(800_000);
    expect(stdout[0]).toBe(0);
    expect(stdout[799_999]).toBe(49);
  });

  it('fails with the last stderr lines and the exit code', async () => {
    const error = await runFfmpeg(['-i', 'pipe:0', '-f', 'null', '-'], { input: Buffer.from('garbage, not media') }).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(FfmpegError);
    expect((error as FfmpegError).exitCode).toBe(1);
    expect((error as FfmpegError).message).toMatch(/Invalid data found when processing input/);
  });

  it('kills ffmpeg after the timeout', async () => {
    // Reads stdin forever: stdin is never closed by an iterable that waits.
    async function* never() {
      yield Buffer.alloc(1);
      await new Promise((resolve) => setTimeout(resolve, 5_000));
    }
    const error = await runFfmpeg(['-f', 'u8', '-ar', '8000', '-ac', '1', '-i', 'pipe:0', '-f', 'null', '-'], {
      input: never(),
      timeoutMs: 300,
    }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(FfmpegError);
    expect((error as FfmpegError).message).toMatch(/timed out after 300 ms/);
  });

  it('hands stdout over chunk by chunk with onOutput, keeping none of it', async () => {
    const input = Buffer.from(Array.from({ length: 300_000 }, (_, i) => i % 251));
    const chunks: Buffer[] = [];
    const result = await runFfmpeg(['-loglevel', 'error', '-f', 'u8', '-ar', '8000', '-ac', '1', '-i', 'pipe:0', '-f', 'u8', 'pipe:1'], {
      input,
      onOutput: (chunk) => chunks.push(chunk),
    });
    expect(result.stdout.length).toBe(0);
    expect(chunks.length).toBeGreaterThan(1);
    expect(Buffer.concat(chunks).equals(input)).toBe(true);
  });

  it('refuses output beyond the limit', async () => {
    const error = await runFfmpeg(['-loglevel', 'error', '-f', 'u8', '-ar', '8000', '-ac', '1', '-i', 'pipe:0', '-f', 'u8', 'pipe:1'], {
      input: Buffer.alloc(100_000),
      maxOutputBytes: 1_000,
    }).catch((e: unknown) => e);
    expect((error as Error).message).toMatch(/output exceeded 1000 bytes/);
  });
});
