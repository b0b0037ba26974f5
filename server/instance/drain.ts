import type { Server } from 'node:http';
import { Server as NetServer } from 'node:net';
import { cutShortInFlight } from '../lifecycle/in-flight';

// How an instance stops serving (SIGTERM). The listener closes at once: a new connection is
// refused, which a proxy or client knows is safe to send elsewhere. Every answer from then on
// carries Connection: close (the launcher sets it), so a keep-alive connection ends after the
// request it is serving, never under one. A connection that was idle when the stop began is
// closed IDLE_CLOSE_MS later (HTTP/1.1 cannot tell an idle client to go away; a client that
// sends at that very moment sees the close and may retry, as with any keep-alive timeout).
// The requests in flight run on for the grace; engine calls still running when it ends are cut
// short: each of those requests answers 503 and its units go back (a stream that had delivered
// output ends with output_interrupted and is charged). A request that still has not
// answered CUT_ANSWER_MS after that has its connection closed.

/** How long a connection idle at the stop stays open (a request already on its way still lands). */
const IDLE_CLOSE_MS = 1_000;
/** How long the requests cut short get to write their 503 (they release their hold first). */
const CUT_ANSWER_MS = 5_000;

export interface DrainReport {
  /** Engine calls cut short when the grace ran out (0 when everything finished in time). */
  cut: number;
  /** Whether connections had to be closed under requests that never answered. */
  forced: boolean;
}

export async function drain(server: Server, graceMs: number, log: (line: string) => void = () => {}): Promise<DrainReport> {
  const report: DrainReport = { cut: 0, forced: false };
  // net's close, not http's: http's also closes the idle keep-alive connections at once.
  const closed = new Promise<void>((resolve) => NetServer.prototype.close.call(server, () => resolve()));
  let idle: NodeJS.Timeout | undefined;
  const idleTimer = setTimeout(
    () => {
      server.closeIdleConnections();
      idle = setInterval(() => server.closeIdleConnections(), 100);
    },
    Math.min(IDLE_CLOSE_MS, graceMs),
  );
  let forceTimer: NodeJS.Timeout | undefined;
  const graceTimer = setTimeout(() => {
    report.cut = cutShortInFlight();
    log(
      `grace of ${graceMs / 1000} s over: ${report.cut} engine call(s) cut short (each answered 503 with its units returned, ` +
        'or, a stream that had delivered output, ended with output_interrupted and charged)',
    );
    forceTimer = setTimeout(() => {
      report.forced = true;
      log('closing the connections of requests that still have not answered');
      server.closeAllConnections();
    }, CUT_ANSWER_MS);
  }, graceMs);
  await closed;
  clearTimeout(idleTimer);
  clearInterval(idle);
  clearTimeout(graceTimer);
  clearTimeout(forceTimer);
  return report;
}
