import { leaveStopSignalsToCaller } from '../../server/db/embedded-postgres';

/**
 * A stop signal this soon after the first is the same stop: one Ctrl-C reaches the process twice
 * at once (the terminal signals npm's whole process group, and npm passes its own on). Only a
 * second stop asked for later is one.
 */
const REPEAT_SIGNAL_MS = 1_000;

/**
 * Takes SIGINT and SIGTERM from the embedded PostgreSQL's own handlers: `stop` runs on the first,
 * `stopNow` on one that comes a second or more after it (the same stop delivered twice is ignored).
 */
export function onStopSignals(stop: (signal: string) => void, stopNow: (signal: string) => void): void {
  let stoppingSince: number | undefined;
  const onSignal = (signal: string) => {
    if (stoppingSince === undefined) {
      stoppingSince = Date.now();
      stop(signal);
    } else if (Date.now() - stoppingSince >= REPEAT_SIGNAL_MS) {
      stopNow(signal);
    }
  };
  leaveStopSignalsToCaller();
  process.on('SIGINT', () => onSignal('SIGINT'));
  process.on('SIGTERM', () => onSignal('SIGTERM'));
}
