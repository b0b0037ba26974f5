import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import ffmpegInstaller from '@ffmpeg-installer/ffmpeg';

// Checks bytes with the real ffmpeg binary: the container is MP4 (mov,mp4 demuxer), the video
// stream is H.264, and every frame decodes without error.

export interface VideoProbe {
  container: string;
  codec: string;
  decodedFrames: number;
  errors: string;
}

export function probeVideo(bytes: Buffer): VideoProbe {
  const dir = mkdtempSync(join(tmpdir(), 'wgs-probe-'));
  try {
    const file = join(dir, 'video.mp4');
    writeFileSync(file, bytes);
    const info = spawnSync(ffmpegInstaller.path, ['-hide_banner', '-i', file], { encoding: 'utf8' });
    const container = /Input #0, ([^,]+(?:,[^,]+)*?), from/.exec(info.stderr)?.[1] ?? '';
    const codec = /Stream #0:\d+[^:]*: Video: (\w+)/.exec(info.stderr)?.[1] ?? '';
    const decode = spawnSync(ffmpegInstaller.path, ['-hide_banner', '-v', 'error', '-i', file, '-f', 'framemd5', '-'], {
      encoding: 'utf8',
    });
    const decodedFrames = decode.stdout.split('\n').filter((line) => /^\d+,/.test(line)).length;
    return {
      container,
      codec,
      decodedFrames,
      errors: decode.status === 0 ? decode.stderr.trim() : `exit ${decode.status}: ${decode.stderr}`,
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
