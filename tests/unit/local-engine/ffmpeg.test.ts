import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import ffmpegInstaller from '@ffmpeg-installer/ffmpeg';
import { afterEach, describe, expect, it } from 'vitest';
import { resetConfigForTests } from '@/server/config';
import { FfmpegError, ffmpegPath, inputArgs, resetFfmpegPathForTests, runFfmpeg } from '@/server/providers/local/ffmpeg';
import { decodeFrameEnergy, MediaDecodeError } from '@/server/providers/local/transcribe';
import { readMediaSeconds } from '@/server/providers/local/media-duration';
import { synthesizeSpeech } from '@/server/providers/local/speech';
import { id3WrappedWav, mp3WithLargeTag } from '../../helpers/crafted-media';

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

describe('the ffmpeg used, and how untrusted media reaches it', () => {
  const saved = { path: process.env.PATH, ffmpeg: process.env.FFMPEG_PATH, limit: process.env.FFMPEG_MEMORY_LIMIT_MB };
  afterEach(() => {
    process.env.PATH = saved.path;
    for (const [name, value] of [
      ['FFMPEG_PATH', saved.ffmpeg],
      ['FFMPEG_MEMORY_LIMIT_MB', saved.limit],
    ] as const) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
    resetConfigForTests();
    resetFfmpegPathForTests();
  });
  const use = (env: Record<string, string | undefined>) => {
    for (const [name, value] of Object.entries(env)) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
    resetConfigForTests();
    resetFfmpegPathForTests();
  };

  it('prefers FFMPEG_PATH, then `ffmpeg` on the PATH (a system build), then the bundled 2018 build', () => {
    const dir = mkdtempSync(join(tmpdir(), 'wgs-path-'));
    const fake = join(dir, 'ffmpeg');
    writeFileSync(fake, '#!/bin/sh\n');
    chmodSync(fake, 0o755);
    use({ FFMPEG_PATH: fake });
    expect(ffmpegPath()).toBe(fake);
    use({ FFMPEG_PATH: undefined, PATH: `/nonexistent:${dir}` });
    expect(ffmpegPath()).toBe(fake);
    use({ PATH: '/nonexistent' });
    expect(ffmpegPath()).toBe(ffmpegInstaller.path);
    rmSync(dir, { recursive: true, force: true });
  });

  it("forces the verified type's demuxer and allows only the protocol the bytes arrive by", () => {
    expect(inputArgs('audio/mpeg', 'pipe:0')).toEqual(['-protocol_whitelist', 'pipe', '-f', 'mp3', '-i', 'pipe:0']);
    expect(inputArgs('video/mp4', '/tmp/x/input.mp4')).toEqual(['-protocol_whitelist', 'file', '-f', 'mp4', '-i', '/tmp/x/input.mp4']);
    expect(inputArgs('audio/wav', 'pipe:0')).toContain('wav');
    expect(inputArgs('video/webm', 'pipe:0')).toContain('webm');
    expect(() => inputArgs('application/x-anything', 'pipe:0')).toThrow(FfmpegError);
  });

  it('the crafted ID3-wrapped upload is not decoded: the mp3 demuxer finds no audio where a probing ffmpeg found a WAV', async () => {
    const crafted = await id3WrappedWav();
    const probed = await runFfmpeg(['-loglevel', 'error', '-i', 'pipe:0', '-f', 's16le', '-ac', '1', 'pipe:1'], { input: crafted });
    expect(probed.stdout.length).toBeGreaterThan(1000); // what ffmpeg does when it chooses the demuxer itself
    await expect(decodeFrameEnergy(crafted, 'audio/mpeg')).rejects.toBeInstanceOf(MediaDecodeError);
    expect((await decodeFrameEnergy(await mp3WithLargeTag(), 'audio/mpeg')).sampleCount).toBeGreaterThan(16_000);
  });

  it('measures a recording as the engines decode it: a short WAV before a long MP3 is not a short recording (outside audit)', async () => {
    const wav = (await synthesizeSpeech({ text: 'Short.', format: 'wav' })).bytes;
    const mp3 = (await synthesizeSpeech({ text: 'A much longer recording that plays on and on. '.repeat(6), format: 'mp3' })).bytes;
    const mp3Seconds = await readMediaSeconds(mp3, 'audio/mpeg');
    expect(mp3Seconds).toBeGreaterThan(15);
    // A probing ffmpeg reads the RIFF header and stops where the WAV ends; the mp3 demuxer, as transcription uses it, plays on.
    const crafted = Buffer.concat([wav, mp3]);
    expect(await readMediaSeconds(crafted, 'audio/mpeg')).toBeGreaterThan(mp3Seconds - 0.5);
    expect((await decodeFrameEnergy(crafted, 'audio/mpeg')).sampleCount / 16_000).toBeGreaterThan(mp3Seconds - 0.5);
    await expect(readMediaSeconds(await id3WrappedWav(), 'audio/mpeg')).rejects.toBeInstanceOf(MediaDecodeError);
    // A limit's check decodes no further than it needs: past it, the answer is only that it is longer.
    expect(await readMediaSeconds(mp3, 'audio/mpeg', 'audio', 3)).toBeGreaterThan(3);
    expect(await readMediaSeconds(mp3, 'audio/mpeg', 'audio', 3)).toBeLessThan(3.1);
  });

  it('measures a recording by the samples it decodes to, not by its timestamps: squashed ones do not shorten it (outside audit)', async () => {
    const opus = ['-loglevel', 'error', '-f', 'lavfi', '-i', 'anoisesrc=d=20:a=0.1', '-c:a', 'libopus', '-f', 'webm', 'pipe:1'];
    const webm = (await runFfmpeg(opus)).stdout;
    const squash = ['-loglevel', 'error', '-f', 'webm', '-i', 'pipe:0', '-c', 'copy', '-bsf:a', 'setts=ts=N', '-f', 'webm', 'pipe:1'];
    const squashed = (await runFfmpeg(squash, { input: webm })).stdout;
    const timestamps = await runFfmpeg(['-f', 'webm', '-i', 'pipe:0', '-map', '0:a:0', '-progress', 'pipe:1', '-f', 'null', '-'], {
      input: squashed,
    });
    const claimed = [...timestamps.stdout.toString().matchAll(/^out_time_us=(\d+)$/gm)].at(-1)![1];
    expect(Number(claimed) / 1e6).toBeLessThan(5); // what the timestamps claim
    expect(await readMediaSeconds(squashed, 'video/webm')).toBeCloseTo(20, 0);
    expect(await readMediaSeconds(squashed, 'video/webm', 'audio', 5)).toBeGreaterThan(5);
  });

  it("runs ffmpeg with none of the service's environment (a decode gets MALLOC_ARENA_MAX alone)", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'wgs-env-'));
    const fake = join(dir, 'ffmpeg');
    writeFileSync(fake, '#!/bin/sh\nexec /usr/bin/env\n');
    chmodSync(fake, 0o755);
    use({ FFMPEG_PATH: fake, WGS_TEST_SECRET_CANARY: 'must-not-leak' });
    const names = async (untrusted: boolean) =>
      (await runFfmpeg([], { untrusted })).stdout
        .toString()
        .split('\n')
        .filter(Boolean)
        .map((line) => line.slice(0, line.indexOf('=')))
        .filter((name) => !['PWD', 'OLDPWD', 'SHLVL', '_'].includes(name)); // what the shell of the fake sets itself
    try {
      expect(await names(false)).toEqual([]);
      expect(await names(true)).toEqual(['MALLOC_ARENA_MAX']);
    } finally {
      delete process.env.WGS_TEST_SECRET_CANARY;
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('decodes of customer media run under FFMPEG_MEMORY_LIMIT_MB: an address space too small for ffmpeg fails the run', async () => {
    const args = ['-loglevel', 'error', '-f', 's16le', '-ar', '16000', '-ac', '1', '-i', 'pipe:0', '-f', 's16le', 'pipe:1'];
    use({ FFMPEG_MEMORY_LIMIT_MB: '4' });
    await expect(runFfmpeg(args, { input: Buffer.alloc(32_000), untrusted: true })).rejects.toBeInstanceOf(FfmpegError);
    await expect(decodeFrameEnergy(await mp3WithLargeTag(), 'audio/mpeg')).rejects.toBeInstanceOf(MediaDecodeError); // a decode is limited
    expect((await runFfmpeg(args, { input: Buffer.alloc(32_000) })).stdout.length).toBe(32_000); // our own encodes are not
    use({ FFMPEG_MEMORY_LIMIT_MB: undefined });
    expect((await runFfmpeg(args, { input: Buffer.alloc(32_000), untrusted: true })).stdout.length).toBe(32_000);
  });
});
