import type { IncomingMessage, ServerResponse } from 'node:http';
import { DRAIN_LIMIT_BYTES, drainBody } from './unread-body';

// How npm start's server answers a request it refuses by its headers alone, whose body the client
// may be sending or may be waiting to send.

/**
 * Requests that asked `Expect: 100-continue` and were not told to go on yet: told only once the
 * edge passes them on, so that one it refuses by its headers (a body too large, a transfer coding)
 * is answered without inviting the body first (RFC 9110 §10.1.1).
 */
const awaitingContinue = new WeakSet<IncomingMessage>();

/**
 * Answers a refused request once its body has gone by, read and dropped, never kept: closing
 * while the client still sends would cut it off mid-write (EPIPE) before it reads the answer. A
 * body past DRAIN_LIMIT_BYTES, or one still arriving after DRAIN_LIMIT_MS, is not waited for.
 */
export function answerAfterDraining(req: IncomingMessage, send: () => void): void {
  // A client waiting for 100 Continue sends no body: it is answered at once, and sends none.
  if (awaitingContinue.delete(req) || Number(req.headers['content-length'] ?? 0) > DRAIN_LIMIT_BYTES || req.complete) send();
  else drainBody(req, send);
}

export function continueIfAwaited(req: IncomingMessage, res: ServerResponse): void {
  if (awaitingContinue.delete(req)) res.writeContinue();
}

/**
 * For the app's requests: 100 Continue goes out when the app first reads the body, so that one it
 * refuses by its headers (the key, the type, the Idempotency-Key, a Content-Length past the limit)
 * is answered without inviting a body it will not read. Node then closes the connection, whose
 * client sent no body (Connection: close). A client that sent its body without waiting (RFC 9110
 * allows it) is told to go on as it arrives, before any answer: its connection is kept.
 */
export function continueOnFirstRead(req: IncomingMessage, res: ServerResponse): void {
  if (!awaitingContinue.has(req)) return;
  if (req.complete || req.readableLength > 0) return continueIfAwaited(req, res); // its body came with its headers
  const read = req._read.bind(req);
  const push = req.push.bind(req);
  const goOn = () => {
    req._read = read;
    req.push = push;
    if (!res.headersSent) continueIfAwaited(req, res);
  };
  req._read = (size: number) => {
    goOn();
    read(size);
  };
  req.push = (chunk: unknown, encoding?: BufferEncoding) => {
    goOn();
    return push(chunk, encoding);
  };
}

/** Whether the client of `req` still waits for 100 Continue (and so sends no body). */
export function awaitsContinue(req: IncomingMessage): boolean {
  return awaitingContinue.has(req);
}

/** Marks a request that asked `Expect: 100-continue` (Node's 'checkContinue'). */
export function awaitContinue(req: IncomingMessage): void {
  awaitingContinue.add(req);
}
