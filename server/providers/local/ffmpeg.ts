// Runs the bundled ffmpeg binary with stdin/stdout pipes. The local media engine never shells
// out through a shell, so prompt text can never become a command.
import { spawn } from 'node:child_process';
import type { Writable } from 'node:stream';
import ffmpegInstaller from '@ffmpeg-installer/ffmpeg';

export interface RunFfmpegOptions {
  /** Bytes (or a stream of chunks, written with backpressure) sent to ffmpeg's stdin. */
  input?: Buffer | AsyncIterable<Buffer>;
  /** Killed after this long; default 60 s. */
  timeoutMs?: number;
  /** Refuse more than this from stdout; default 512 MiB. */
  maxOutputBytes?: number;
  /** Takes stdout chunk by chunk as it comes, instead of buffering it (`stdout` is then empty). */
  onOutput?: (chunk: Buffer) => void;
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
  ) {
    super(message);
    this.name = 'FfmpegError';
  }
}

const STDERR_KEEP_CHARS = 64 * 1024;

/** FFMPEG_PATH lets an operator use a system ffmpeg instead of the bundled build. */
export function ffmpegPath(): string {
  return process.env.FFMPEG_PATH || ffmpegInstaller.path;
}

export function runFfmpeg(args: readonly string[], options: RunFfmpegOptions = {}): Promise<FfmpegResult> {
  const { input, timeoutMs = 60_000, maxOutputBytes = 512 * 1024 * 1024, onOutput } = options;
  return new Promise((resolve, reject) => {
    const child = spawn(ffmpegPath(), ['-hide_banner', ...args], { stdio: ['pipe', 'pipe', 'pipe'] });
    const chunks: Buffer[] = [];
    let outputBytes = 0;
    let stderr = '';
    let failure: string | undefined;

    const fail = (reason: string) => {
      failure ??= reason;
      child.kill('SIGKILL');
    };
    const timer = setTimeout(() => fail(`ffmpeg timed out after ${timeoutMs} ms`), timeoutMs);

    child.stdout.on('data', (chunk: Buffer) => {
      outputBytes += chunk.length;
      if (outputBytes > maxOutputBytes) fail(`ffmpeg output exceeded ${maxOutputBytes} bytes`);
      else if (onOutput) onOutput(chunk);
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
      reject(new FfmpegError(tail ? `${reason}: ${tail}` : reason, code, tail));
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
