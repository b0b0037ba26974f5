import type { Dispatcher } from 'undici';
import { afterAnswerBegan } from './engine';
import { refusalIn } from './outbound/outbound-door';
import { providerDoor } from './outbound/provider-door';
import { limitFor, ReplyTooLargeError, tooLarge } from './reply-limits';

// API calls (a POST whose body is text or bytes, the hot path) sent with undici's `dispatch` on
// the outbound door: a third of the CPU of fetch, and out of reach of the fetch Next.js patches.
// Its answer reads as fetch's would (capped-fetch.ts uses fetch for everything else).

function headerPairs(headers: HeadersInit | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  if (!headers) return out;
  if (headers instanceof Headers || Array.isArray(headers)) {
    for (const [name, value] of headers as Iterable<[string, string]>) out[name.toLowerCase()] = value;
    return out;
  }
  for (const [name, value] of Object.entries(headers)) if (value !== undefined) out[name.toLowerCase()] = String(value);
  return out;
}

/** The reply's header pairs, as undici hands them over (names and values as raw bytes). */
function headersOf(raw: Buffer[]): Headers {
  const headers = new Headers();
  for (let i = 0; i + 1 < raw.length; i += 2) headers.append(raw[i]!.toString('latin1'), raw[i + 1]!.toString('latin1'));
  return headers;
}

/** The signal of one attempt and what ends it (see attemptSignal); a streamed reply ends it itself. */
interface Attempt {
  signal: AbortSignal | undefined;
  done: () => void;
  /** Set when the reply is an event stream handed on as it arrives: its end ends the attempt. */
  streaming?: boolean;
}

const isEventStream = (status: number, headers: Headers) =>
  status >= 200 && status < 300 && (headers.get('content-type') ?? '').toLowerCase().startsWith('text/event-stream');

/**
 * One direct request's reply, gathered by plain callbacks of undici's `dispatch` (no stream or
 * async resource per call), except a 2xx event stream (a streamed completion), handed on chunk by
 * chunk from its headers on. Resolves undefined when the answer is a redirect (the caller then
 * uses fetch). Rejects with the abort's reason, ReplyTooLargeError or undici's error; a streamed
 * body errors with the same.
 */
class DirectReply implements Dispatcher.DispatchHandlers {
  private abort: ((reason: Error) => void) | undefined;
  private status = 0;
  private headers: Headers | undefined;
  private redirect = false;
  private limit = 0;
  private received = 0;
  private readonly chunks: Buffer[] = [];
  private stream: ReadableStreamDefaultController<Uint8Array> | undefined;
  private readonly onAbort = () => this.abort?.(this.attempt.signal!.reason);

  constructor(
    private readonly attempt: Attempt,
    private readonly resolve: (response: Response | undefined) => void,
    private readonly reject: (reason: unknown) => void,
  ) {
    attempt.signal?.addEventListener('abort', this.onAbort, { once: true });
  }

  onConnect(abortRequest: (reason: Error) => void) {
    this.abort = abortRequest;
    if (this.attempt.signal?.aborted) abortRequest(this.attempt.signal.reason);
  }

  onHeaders(statusCode: number, rawHeaders: Buffer[] | string[] | null) {
    const headers = headersOf(rawHeaders as unknown as Buffer[]);
    this.status = statusCode;
    this.headers = headers;
    this.redirect = statusCode >= 300 && statusCode < 400 && headers.has('location');
    this.limit = limitFor(headers.get('content-type'));
    if (Number(headers.get('content-length') ?? 0) > this.limit) return this.cutOff(tooLarge(this.limit));
    if (isEventStream(statusCode, headers)) this.startStream();
    return true;
  }

  onData(chunk: Buffer) {
    if (this.redirect) return true;
    this.received += chunk.byteLength;
    if (this.received > this.limit) return this.cutOff(tooLarge(this.limit));
    if (!this.stream) this.chunks.push(chunk);
    else if (this.stream.desiredSize !== null) this.stream.enqueue(new Uint8Array(chunk)); // null: the reader is gone
    return true;
  }

  onComplete() {
    this.finish();
    if (this.stream) return this.stream.close();
    if (this.redirect) return this.resolve(undefined);
    const { chunks, received, status } = this;
    const body = (chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, received)) as Uint8Array<ArrayBuffer>;
    // A 204/304 answer may carry no body, and Response refuses one for them.
    const empty = status === 204 || status === 304;
    this.resolve(new Response(empty ? null : body, { status, headers: this.headers }));
  }

  onError(error: Error) {
    this.finish();
    // A 2xx whose body broke off: the provider began its answer (its prompt is paid for, billing.md).
    if (!this.stream) return this.reject(this.status >= 200 && this.status < 300 ? afterAnswerBegan(error) : error);
    // As fetch's body fails: the abort's reason, else a TypeError naming undici's error.
    const { signal } = this.attempt;
    const reason = signal?.aborted
      ? signal.reason
      : error instanceof ReplyTooLargeError
        ? error
        : new TypeError('terminated', { cause: error });
    this.stream.error(reason);
  }

  /** Hands the event stream on from here: its end ends the attempt. */
  private startStream() {
    this.attempt.streaming = true;
    const body = new ReadableStream<Uint8Array>({
      start: (controller) => void (this.stream = controller),
      cancel: () => this.abort?.(new DOMException('The reader cancelled the stream.', 'AbortError')),
    });
    this.resolve(new Response(body, { status: this.status, headers: this.headers }));
  }

  private cutOff(error: Error) {
    this.abort?.(error);
    return false;
  }

  private finish() {
    this.attempt.signal?.removeEventListener('abort', this.onAbort);
    if (this.stream) this.attempt.done();
  }
}

/** A POST of text or bytes through the door's `dispatch`, its reply gathered by DirectReply. */
function requestDirect(url: string, init: RequestInit & { body: string | Uint8Array }, attempt: Attempt) {
  return new Promise<Response | undefined>((resolve, reject) => {
    if (attempt.signal?.aborted) return reject(attempt.signal.reason);
    const target = new URL(url);
    providerDoor.dispatch(
      { origin: target.origin, path: target.pathname + target.search, method: 'POST', headers: headerPairs(init.headers), body: init.body },
      new DirectReply(attempt, resolve, reject),
    );
  });
}

/**
 * One attempt's signal: the caller's, and a timeout when one is given. A timer cleared when the
 * attempt ends, not AbortSignal.timeout/any, whose WeakRefs keep each call's objects alive into
 * the old generation (see server/http/request-deadline.ts).
 */
function attemptSignal(outer: AbortSignal | null | undefined, timeoutMs: number | undefined): Attempt {
  if (timeoutMs === undefined) return { signal: outer ?? undefined, done: () => {} };
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(new DOMException('The operation timed out.', 'TimeoutError')), timeoutMs);
  timer.unref();
  const onAbort = () => controller.abort(outer!.reason);
  if (outer?.aborted) onAbort();
  else outer?.addEventListener('abort', onAbort, { once: true });
  const done = () => {
    clearTimeout(timer);
    outer?.removeEventListener('abort', onAbort);
  };
  return { signal: controller.signal, done };
}

/**
 * A POST of text or bytes sent directly, given timeoutMs each attempt timed out. Undefined when
 * the answer is a redirect: the caller then follows it with fetch.
 */
export async function postDirect(
  url: string,
  init: RequestInit & { body: string | Uint8Array },
  timeoutMs: number | undefined,
): Promise<Response | undefined> {
  const attempt = attemptSignal(init.signal, timeoutMs);
  try {
    return await requestDirect(url, init, attempt);
  } catch (error) {
    // Failing as fetch fails, so every client reads it as it always has: an abort is the signal's
    // reason; a refused, reset or cut connection a TypeError "fetch failed" with its cause.
    if (attempt.signal?.aborted) throw attempt.signal.reason;
    if (error instanceof ReplyTooLargeError) throw error;
    const refused = refusalIn(error);
    if (refused) throw refused;
    throw new TypeError('fetch failed', { cause: error });
  } finally {
    if (!attempt.streaming) attempt.done();
  }
}
