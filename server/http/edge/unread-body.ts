import type { IncomingMessage } from 'node:http';

// What is left of a request body nobody read (a request refused before its end) is read and
// dropped, so that its sender reads the answer and its socket carries the next request; but only
// so much of it, and only for so long.

/** The most of a refused body that is read (and dropped) so that its sender can read the answer. */
export const DRAIN_LIMIT_BYTES = 16 * 1024 * 1024;
/** How long a refused body still arriving is read before its connection is closed. */
export const DRAIN_LIMIT_MS = 5_000;

/**
 * Reads `req`'s body and drops it; then `done(true)` once nothing more comes (its end, or its
 * request closed), or `done(false)` once more than DRAIN_LIMIT_BYTES came, it is still arriving
 * DRAIN_LIMIT_MS later, or it failed.
 */
export function drainBody(req: IncomingMessage, done: (ended: boolean) => void): void {
  let received = 0;
  const finish = (ended: boolean) => {
    clearTimeout(timer);
    req.off('data', onData);
    req.off('end', onEnd);
    req.off('close', onEnd);
    req.off('error', onCut);
    done(ended);
  };
  const onData = (chunk: Buffer) => {
    received += chunk.length;
    if (received > DRAIN_LIMIT_BYTES) finish(false);
  };
  const onEnd = () => finish(true);
  const onCut = () => finish(false);
  const timer = setTimeout(onCut, DRAIN_LIMIT_MS);
  timer.unref();
  req.on('data', onData);
  req.once('end', onEnd);
  req.once('close', onEnd);
  req.once('error', onCut);
  req.resume();
}

/**
 * Reads the rest of `req`'s body and drops it, once its answer was written; one past
 * DRAIN_LIMIT_BYTES, or still arriving DRAIN_LIMIT_MS later, closes the connection instead. This
 * replaces @hono/node-server's own clean-up, whose fixed half second cut off a client still
 * sending on a slow link, so that a pooled client's next request on that socket failed.
 */
export function dropUnreadBody(req: IncomingMessage): void {
  if (req.readableEnded || req.destroyed) return;
  drainBody(req, (ended) => {
    if (!ended) req.socket.destroy();
  });
}
