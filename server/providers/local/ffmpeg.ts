// Runs ffmpeg with stdin/stdout pipes. The local media engine never shells out through a shell,
// so prompt text can never become a command. Customer media is untrusted input to a decoder:
// the ffmpeg used is the system's (FFMPEG_PATH, else `ffmpeg` on the PATH: a distribution's
// build gets security fixes) before the bundled 2018 build; an input is read with the demuxer
// its verified type names and only the protocol it arrives by (inputArgs); and every run has a
// wall-clock limit (timeoutMs), and a decode of customer media an address-space limit too
// (FFMPEG_MEMORY_LIMIT_MB, set with util-linux's prlimit(1) on the child, so a decoder bug cannot
// take the host's memory).
import { spawn } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import type { Writable } from 'node:stream';
import ffmpegInstaller from '@ffmpeg-installer/ffmpeg';
import { getConfig } from '../../config';
import { environmentVariable } from '../../config/environment';

export interface RunFfmpegOptions {
  /** Bytes (or a stream of chunks, written with backpressure) sent to ffmpeg's stdin. */
  input?: Buffer | AsyncIterable<Buffer>;
  /** Killed after this long; default 60 s. */
  timeoutMs?: number;
  /** Refuse more than this from stdout; default 512 MiB. */
  maxOutputBytes?: number;
  /** Takes stdout chunk by chunk as it comes, instead of buffering it (`stdout` is then empty). */
  onOutput?: (chunk: Buffer) => void;
  /** The run decodes customer media: it gets the FFMPEG_MEMORY_LIMIT_MB address-space limit. */
  untrusted?: boolean;
}

export interface FfmpegResult {
  stdout: Buffer;
  /** The tail of stderr (ffmpeg's log), kept for probing and diagnostics. */
  stderr: string;
}

export class FfmpegError extends Error {
  constructor(
    message: string,
    readonly exitCode: number | null,
    readonly stderrTail: string,
    /** Stopped because it produced more than `maxOutputBytes`: the input decodes to more than the caller takes. */
    readonly outputLimited = false,
  ) {
    super(message);
    this.name = 'FfmpegError';
  }
}

const STDERR_KEEP_CHARS = 64 * 1024;

/** The first executable `name` on the PATH, or undefined. */
function onPath(name: string): string | undefined {
  for (const folder of (environmentVariable('PATH') ?? '').split(delimiter)) {
    if (!folder) continue;
    const candidate = join(folder, name);
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not here
    }
  }
  return undefined;
}

let resolved: { ffmpeg: string; prlimit: string | undefined } | undefined;

/** FFMPEG_PATH, else the system's `ffmpeg` on the PATH, else the bundled build (@ffmpeg-installer, 2018). */
export function ffmpegPath(): string {
  resolved ??= { ffmpeg: getConfig().FFMPEG_PATH ?? onPath('ffmpeg') ?? ffmpegInstaller.path, prlimit: onPath('prlimit') };
  return resolved.ffmpeg;
}

/** Forgets the binaries found (tests change FFMPEG_PATH and PATH). */
export function resetFfmpegPathForTests(): void {
  resolved = undefined;
}

/**
 * The command that runs ffmpeg; a decode of customer media under the memory limit, with prlimit
 * when the system has it (util-linux, in every Debian). Our own encodes (speech, rendered video)
 * are not limited: x264's per-thread buffers grow with the host's cores.
 */
function command(args: readonly string[], untrusted: boolean): [string, string[]] {
  const ffmpeg = ffmpegPath();
  const limitMb = getConfig().FFMPEG_MEMORY_LIMIT_MB;
  if (untrusted && limitMb > 0 && resolved?.prlimit) {
    return [resolved.prlimit, [`--as=${limitMb * 1024 * 1024}`, '--', ffmpeg, '-hide_banner', ...args]];
  }
  return [ffmpeg, ['-hide_banner', ...args]];
}

// ffmpeg gets none of the service's environment (its secrets, provider keys, DATABASE_URL): a
// decoder bug must not read them from /proc/self/environ. Both binaries are called by absolute
// path, so no PATH is needed. glibc reserves 64 MiB of address space per malloc arena (up to 8
// per core): under an address-space limit a decode on a many-core host would run out of it
// without using memory, hence MALLOC_ARENA_MAX, the one variable a decode gets.
// (Next's types make NODE_ENV required in an environment; ffmpeg needs none.)
const OWN_ENV = {} as NodeJS.ProcessEnv;
const UNTRUSTED_ENV = { MALLOC_ARENA_MAX: '2' } as unknown as NodeJS.ProcessEnv;

/** ffmpeg's demuxer for each verified media type: never chosen from the content itself. */
const DEMUXERS: Record<string, string> = {
  'audio/mpeg': 'mp3',
  'audio/wav': 'wav',
  'audio/x-wav': 'wav',
  'audio/mp4': 'mp4',
  'video/mp4': 'mp4',
  'video/webm': 'webm',
  'image/png': 'png_pipe',
  'image/jpeg': 'jpeg_pipe',
  'image/webp': 'webp_pipe',
};

/**
 * The input options for untrusted media: the demuxer its verified type names (`-f`), and only
 * the protocol the bytes arrive by (`pipe` for stdin, `file` for a temporary file).
 */
export function inputArgs(mimeType: string, source: string): string[] {
  const mime = mimeType.split(';')[0]?.trim().toLowerCase() ?? '';
  const demuxer = DEMUXERS[mime];
  if (!demuxer) throw new FfmpegError(`no demuxer for ${mime || 'this media type'}`, null, '');
  return ['-protocol_whitelist', source.startsWith('pipe:') ? 'pipe' : 'file', '-f', demuxer, '-i', source];
}

// MP4 keeps its index (moov) wherever the writer put it, often at the end: ffmpeg must seek.
const NEEDS_SEEKABLE_FILE = new Set(['audio/mp4', 'video/mp4']);

/**
 * Decodes customer media (`bytes` of the verified `mimeType`) with `output` (ffmpeg's options
 * after the input): its type's demuxer and protocol only (inputArgs), under the memory limit; by
 * stdin, or from a temporary file where the container needs seeking.
 */
export async function decodeCustomerMedia(
  bytes: Buffer,
  mimeType: string,
  output: readonly string[],
  options: Omit<RunFfmpegOptions, 'input' | 'untrusted'>,
): Promise<FfmpegResult> {
  const mime = mimeType.split(';')[0]?.trim().toLowerCase() ?? '';
  const log = ['-loglevel', 'error', '-nostats'];
  if (!NEEDS_SEEKABLE_FILE.has(mime)) {
    return runFfmpeg([...log, ...inputArgs(mime, 'pipe:0'), ...output], { ...options, input: bytes, untrusted: true });
  }
  const folder = await mkdtemp(join(tmpdir(), 'wgs-media-'));
  try {
    const file = join(folder, 'input.mp4');
    await writeFile(file, bytes);
    return await runFfmpeg([...log, ...inputArgs(mime, file), ...output], { ...options, untrusted: true });
  } finally {
    await rm(folder, { recursive: true, force: true });
  }
}

export function runFfmpeg(args: readonly string[], options: RunFfmpegOptions = {}): Promise<FfmpegResult> {
  const { input, timeoutMs = 60_000, maxOutputBytes = 512 * 1024 * 1024, onOutput, untrusted = false } = options;
  return new Promise((resolve, reject) => {
    const [file, argv] = command(args, untrusted);
    const child = spawn(file, argv, { stdio: ['pipe', 'pipe', 'pipe'], env: untrusted ? UNTRUSTED_ENV : OWN_ENV });
    const chunks: Buffer[] = [];
    let outputBytes = 0;
    let stderr = '';
    let failure: string | undefined;
    let outputLimited = false;

    const fail = (reason: string) => {
      failure ??= reason;
      child.kill('SIGKILL');
    };
    const timer = setTimeout(() => fail(`ffmpeg timed out after ${timeoutMs} ms`), timeoutMs);

    child.stdout.on('data', (chunk: Buffer) => {
      outputBytes += chunk.length;
      if (outputBytes > maxOutputBytes) {
        outputLimited ||= failure === undefined; // the first failure names it
        fail(`ffmpeg output exceeded ${maxOutputBytes} bytes`);
      } else if (onOutput) onOutput(chunk);
      else chunks.push(chunk);
    });
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (text: string) => {
      stderr = (stderr + text).slice(-STDERR_KEEP_CHARS);
    });
    // ffmpeg may exit before reading all input (bad data); the exit code tells the story, not EPIPE.
    child.stdin.on('error', () => undefined);

    child.on('error', (error) => {
      clearTimeout(timer);
      reject(new FfmpegError(`ffmpeg could not start: ${error.message}`, null, ''));
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      if (failure === undefined && code === 0) {
        resolve({ stdout: Buffer.concat(chunks), stderr });
        return;
      }
      const tail = lastLines(stderr, 6);
      const reason = failure ?? `ffmpeg exited with code ${code}`;
      reject(new FfmpegError(tail ? `${reason}: ${tail}` : reason, code, tail, outputLimited));
    });

    writeInput(child.stdin, input).catch((error: unknown) => {
      fail(`ffmpeg input failed: ${error instanceof Error ? error.message : String(error)}`);
    });
  });
}

async function writeInput(stdin: Writable, input: RunFfmpegOptions['input']): Promise<void> {
  if (input === undefined) {
    stdin.end();
    return;
  }
  if (Buffer.isBuffer(input)) {
    stdin.end(input);
    return;
  }
  try {
    for await (const chunk of input) {
      if (stdin.destroyed) break;
      if (!stdin.write(chunk)) await drained(stdin);
    }
  } finally {
    stdin.end();
  }
}

function drained(stdin: Writable): Promise<void> {
  return new Promise((done) => {
    const finish = () => {
      stdin.off('drain', finish);
      stdin.off('close', finish);
      done();
    };
    stdin.on('drain', finish);
    stdin.on('close', finish);
  });
}

function lastLines(text: string, count: number): string {
  return text
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter(Boolean)
    .slice(-count)
    .join(' | ');
}
