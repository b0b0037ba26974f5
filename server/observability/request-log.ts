import pino, { type Logger } from 'pino';
import pretty from 'pino-pretty';
import SonicBoom from 'sonic-boom';
import { getConfig } from '../config';
import { currentMetrics } from './metrics';

// One line per /v1 request (LOG_FORMAT: json by default, pretty for a terminal, off). Only the
// fields below are ever written: never a key, a provider secret or a body.

export interface RequestLine {
  request_id: string;
  method: string;
  route: string;
  key_prefix?: string;
  package?: string;
  operation: string;
  status: number;
  code?: string;
  units?: number;
  engine?: string;
  /** `store_unavailable`: a 503 because the database or Redis was away, not a provider (the code is the same). */
  cause?: 'store_unavailable';
  duration_ms: number;
}

/** Undefined until the first line (LOG_FORMAT read then), null when off. */
let current: Logger | null | undefined;

/** Lines wait in memory while stdout's reader is behind, up to this many bytes; later lines are dropped (and counted). */
const MAX_GATHERED_BYTES = 16 * 1024 * 1024;
/** Until when a write that finds stdout full may wait for it: only during the stop's flush. */
let waitForReaderUntil = 0;

/**
 * stdout as the lines' destination, written by the main thread as pino writes by default: handing
 * each write to libuv's thread pool instead (sync: false) cost a paid call about 6% more server
 * CPU, measured in pairs (scripts/bench/pair-probe.ts, docs/performance.md). JSON lines gather up
 * to `minLength` bytes per write(2); what is still gathered is written within a second, and at
 * the stop.
 */
function stdoutDestination(minLength: number): SonicBoom {
  const destination = new SonicBoom({
    fd: 1,
    sync: true,
    minLength,
    periodicFlush: minLength > 0 ? 1000 : 0,
    maxLength: MAX_GATHERED_BYTES,
    // A pipe whose reader is behind answers EAGAIN. sonic-boom would sleep 100 ms on the main thread
    // and try again, holding every request up (for good when nobody reads); the lines stay gathered
    // instead and go out with a later write. Only the stop's flush waits for the reader.
    retryEAGAIN: () => Date.now() < waitForReaderUntil,
  });
  let broken = false;
  destination.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code === 'EAGAIN' || error.code === 'EBUSY' || broken) return;
    // The reader is gone (EPIPE) or stdout broke: requests go on, without their lines.
    broken = true;
    current = null;
    process.stderr.write(`request log stopped: ${error.message}\n`);
  });
  destination.on('drop', () => currentMetrics()?.logLinesDropped.inc());
  return destination;
}

/** The logger for LOG_FORMAT, or null when off; `destination` is for tests. */
export function createRequestLogger(format: 'json' | 'pretty' | 'off', destination?: NodeJS.WritableStream): Logger | null {
  if (format === 'off') return null;
  const options = { base: undefined, messageKey: 'msg', timestamp: pino.stdTimeFunctions.isoTime };
  if (format === 'pretty') {
    // One line a request, as JSON's: the fields after the time, level and message, on the same line.
    return pino(options, pretty({ destination: destination ?? stdoutDestination(0), singleLine: true }));
  }
  return pino(options, destination ?? stdoutDestination(4096));
}

function logger(): Logger | null {
  if (current === undefined) current = createRequestLogger(getConfig().LOG_FORMAT);
  return current;
}

/** Tests write the lines to their own stream. */
export function useRequestLogger(replacement: Logger | null): void {
  current = replacement;
}

export function logRequest(line: RequestLine): void {
  logger()?.info(line, 'request');
}

/** Writes what the buffer holds (at shutdown), waiting up to 5 s for a reader that is behind. */
export function flushRequestLog(): Promise<void> {
  const logger = current;
  if (!logger) return Promise.resolve();
  waitForReaderUntil = Date.now() + 5_000;
  return new Promise((resolve) => logger.flush(() => resolve()));
}
