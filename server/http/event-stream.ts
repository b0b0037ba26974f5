import { ApiError, type ErrorCode } from '../domain/errors';
import { baseHeaders, errorBody, toApiError } from './responses';

// A streamed answer as server-sent events (text/event-stream): `event: delta` with
// `data: {"text":"…"}` per piece, then one `event: done` with the result, or one `event: error`
// with the error envelope. The answer is a ReadableStream that Next writes (and flushes) chunk by
// chunk; a comment opens it, so the headers leave at once, and one follows every KEEP_ALIVE_MS so
// that no proxy closes a quiet connection.

/** The longest a stream stays silent: a keep-alive comment is written at least this often. */
export const KEEP_ALIVE_MS = 15_000;

const KEEP_ALIVE = ': keep-alive\n\n';
const encoder = new TextEncoder();

/** Whether the request asks for an event stream: its Accept names text/event-stream, not with q=0. */
export function acceptsEventStream(request: Request): boolean {
  const accept = request.headers.get('accept');
  // The common answer (no Accept, */*, application/json) costs one substring search.
  if (accept === null || !accept.toLowerCase().includes('text/event-stream')) return false;
  return accept.split(',').some((range) => {
    const [type, ...params] = range.split(';').map((part) => part.trim().toLowerCase());
    if (type !== 'text/event-stream') return false;
    const q = params.find((param) => param.startsWith('q='));
    return q === undefined || Number(q.slice(2)) > 0;
  });
}

/** One event; `data` is a single line of JSON. */
export function eventText(event: 'delta' | 'done' | 'error', data: string): string {
  return `event: ${event}\ndata: ${data}\n\n`;
}

/** A `delta` event: one piece of the text. */
export function deltaEventText(text: string): string {
  return eventText('delta', JSON.stringify({ text }));
}

/** An `error` event: the error envelope. */
export function errorEventText(error: ApiError, requestId: string): string {
  return eventText('error', JSON.stringify(errorBody(error, requestId)));
}

/** An event stream's head, on either surface: every answer's (its `Cache-Control: no-store` too, CONTRACT.md §1). */
export function eventStreamHeaders(requestId: string, extra?: Record<string, string>): Headers {
  const headers = baseHeaders(requestId, extra);
  headers.set('Content-Type', 'text/event-stream; charset=utf-8');
  // nginx and its kind pass each event on instead of collecting the answer.
  headers.set('X-Accel-Buffering', 'no');
  return headers;
}

/** The error a charged stream ended with, from the events stored for its replays (their last `error` event). */
export function endingOf(events: string | undefined): ApiError | undefined {
  const last = events
    ?.trimEnd()
    .split('\n')
    .findLast((line) => line.startsWith('data: '));
  if (!last) return undefined;
  const { error } = JSON.parse(last.slice('data: '.length)) as { error?: { code: ErrorCode; message: string } };
  return error ? new ApiError(error.code, { message: error.message }) : undefined;
}

/** A finished result as a stream of one `done` event (a replay). */
export function doneEventResponse(body: string, requestId: string, extra?: Record<string, string>): Response {
  return replayedEventsResponse(eventText('done', body), requestId, extra);
}

/** Stored events written again (a replay): one `done`, or a charged call's deltas and its `error` event. */
export function replayedEventsResponse(events: string, requestId: string, extra?: Record<string, string>): Response {
  return new Response(events, { status: 200, headers: eventStreamHeaders(requestId, extra) });
}

/**
 * Produces the answer, handing each piece to `onDelta` (which says whether it was written: false
 * once the client went away), and resolves with the `done` event's data once the result is
 * charged; `signal` fires when the client goes away. It settles the request itself either way:
 * the stream only writes what it is given.
 */
export type StreamWork = (signal: AbortSignal, onDelta: (text: string) => boolean) => Promise<string>;

/**
 * Calls `leave` once the client is gone, as the request's own signal tells it (aborted when the
 * connection closed before the answer ended: npm start's server, Next's alike), at once if it is
 * already: a client that half-closed or reset while its request was checked is gone by the time its
 * answer begins, and an aborted signal fires no listener.
 */
export function whenClientGone(request: AbortSignal, leave: () => void): void {
  if (request.aborted) leave();
  else request.addEventListener('abort', leave, { once: true });
}

/** `work`'s pieces as they come; its signal fires on `request` (the request's own signal) or the body's cancel. */
export function eventStreamResponse(requestId: string, extra: Record<string, string>, request: AbortSignal, work: StreamWork): Response {
  const disconnect = new AbortController();
  let keepAlive: ReturnType<typeof setInterval> | undefined;
  const clientGone = () => {
    clearInterval(keepAlive);
    if (!disconnect.signal.aborted) disconnect.abort(new DOMException('The client closed the stream.', 'AbortError'));
  };
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      const send = (text: string): boolean => {
        if (disconnect.signal.aborted) return false;
        controller.enqueue(encoder.encode(text));
        return true;
      };
      send(KEEP_ALIVE);
      keepAlive = setInterval(() => send(KEEP_ALIVE), KEEP_ALIVE_MS);
      whenClientGone(request, clientGone); // its run then never calls an engine (stream-channel.ts)
      const onDelta = (text: string) => send(deltaEventText(text));
      work(disconnect.signal, onDelta)
        .then(
          (done) => send(eventText('done', done)),
          (error: unknown) => {
            if (disconnect.signal.aborted) return; // nobody to tell
            send(errorEventText(toApiError(error, requestId), requestId));
          },
        )
        .finally(() => {
          clearInterval(keepAlive);
          if (!disconnect.signal.aborted) controller.close();
        });
    },
    cancel: clientGone,
  });
  return new Response(body, { status: 200, headers: eventStreamHeaders(requestId, extra) });
}
