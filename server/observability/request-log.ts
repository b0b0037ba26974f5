import pino, { type Logger } from 'pino';
import pretty from 'pino-pretty';
import { getConfig } from '../config';

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
  duration_ms: number;
}

/** Undefined until the first line (LOG_FORMAT read then), null when off. */
let current: Logger | null | undefined;

/** The logger for LOG_FORMAT, or null when off; `destination` is for tests. */
export function createRequestLogger(format: 'json' | 'pretty' | 'off', destination?: NodeJS.WritableStream): Logger | null {
  if (format === 'off') return null;
  const options = { base: undefined, messageKey: 'msg', timestamp: pino.stdTimeFunctions.isoTime };
  if (format === 'pretty') {
    return pino(options, pretty({ destination: destination ?? 1, sync: true }));
  }
  // Lines gather up to 4 KB and go out in one write(2) from the main thread, as pino writes by
  // default: handing each write to libuv's thread pool instead (sync: false) cost a paid call about
  // 6% more server CPU, measured in pairs (scripts/bench/pair-probe.ts, docs/performance.md).
  // What is still gathered is written within a second, and at shutdown.
  return pino(options, destination ?? pino.destination({ dest: 1, sync: true, minLength: 4096, periodicFlush: 1000 }));
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

/** Writes what the buffer holds (at shutdown). */
export function flushRequestLog(): Promise<void> {
  const logger = current;
  if (!logger) return Promise.resolve();
  return new Promise((resolve) => logger.flush(() => resolve()));
}
