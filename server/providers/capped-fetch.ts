import { fetch as undiciFetch } from 'undici';
import { metadataHostOf } from './metadata-hosts';
import { outboundDoor, RefusedDestinationError, refusalIn } from './outbound/outbound-door';

// The fetch every provider client is built with. A provider's reply may hold at most: JSON (text,
// code, base64 images) 16 MiB, media 100 MiB; a larger reply, read whole, would exhaust the
// server's heap, so it is cut off as a provider failure.
//
// Every request goes through the outbound door (outbound/outbound-door.ts), which judges the
// address each connection reaches. API calls (a POST whose body is text or bytes, the hot path)
// use undici's `dispatch` on the door: a third of the CPU of fetch, and out of reach of the fetch
// Next.js patches. Everything else (form uploads, redirects, media downloads) uses undici's fetch
// with the door as its dispatcher. See docs/performance.md, "What each runtime setting buys".

const JSON_REPLY_LIMIT = 16 * 1024 * 1024;
const MEDIA_REPLY_LIMIT = 104_857_600;

export { RefusedDestinationError };

const metadataRefusal = (host: string) => new RefusedDestinationError(`refused: ${host} is a cloud metadata or link-local address`);

const REDIRECTS = new Set([301, 302, 303, 307, 308]);
const MAX_REDIRECTS = 5;

const limitFor = (contentType: string | null | undefined) => ((contentType ?? '').includes('json') ? JSON_REPLY_LIMIT : MEDIA_REPLY_LIMIT);
class ReplyTooLargeError extends Error {}
const tooLarge = (limit: number) => new ReplyTooLargeError(`the provider's reply is larger than ${limit} bytes`);

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

function isPlainBody(body: unknown): body is string | Uint8Array {
  return typeof body === 'string' || body instanceof Uint8Array;
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
 * A POST of text or bytes through the door's `dispatch`: the reply is gathered by plain
 * callbacks (no stream or async resource per call), except a 2xx event stream (a streamed
 * completion), handed on chunk by chunk from its headers on. Undefined when the answer is a
 * redirect (the caller then uses fetch). Rejects with the abort's reason, ReplyTooLargeError or
 * undici's error; a streamed body errors with the same.
 */
function requestDirect(url: string, init: RequestInit & { body: string | Uint8Array }, attempt: Attempt) {
  const { signal } = attempt;
  return new Promise<Response | undefined>((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const target = new URL(url);
    let abort: ((reason: Error) => void) | undefined;
    let status = 0;
    let headers: Headers | undefined;
    let redirect = false;
    let limit = 0;
    let received = 0;
    const chunks: Buffer[] = [];
    let stream: ReadableStreamDefaultController<Uint8Array> | undefined;
    const onAbort = () => abort?.(signal!.reason);
    signal?.addEventListener('abort', onAbort, { once: true });
    const done = () => {
      signal?.removeEventListener('abort', onAbort);
      if (stream) attempt.done();
    };
    const cutOff = (error: Error) => {
      abort?.(error);
      return false;
    };
    outboundDoor.dispatch(
      { origin: target.origin, path: target.pathname + target.search, method: 'POST', headers: headerPairs(init.headers), body: init.body },
      {
        onConnect(abortRequest) {
          abort = abortRequest;
          if (signal?.aborted) abortRequest(signal.reason);
        },
        onHeaders(statusCode, rawHeaders) {
          status = statusCode;
          headers = headersOf(rawHeaders as unknown as Buffer[]);
          redirect = statusCode >= 300 && statusCode < 400 && headers.has('location');
          limit = limitFor(headers.get('content-type'));
          if (Number(headers.get('content-length') ?? 0) > limit) return cutOff(tooLarge(limit));
          if (isEventStream(statusCode, headers)) {
            attempt.streaming = true;
            const body = new ReadableStream<Uint8Array>({
              start: (controller) => void (stream = controller),
              cancel: () => abort?.(new DOMException('The reader cancelled the stream.', 'AbortError')),
            });
            resolve(new Response(body, { status, headers }));
          }
          return true;
        },
        onData(chunk) {
          if (redirect) return true;
          received += chunk.byteLength;
          if (received > limit) return cutOff(tooLarge(limit));
          if (!stream) chunks.push(chunk);
          else if (stream.desiredSize !== null) stream.enqueue(new Uint8Array(chunk)); // null: the reader is gone
          return true;
        },
        onComplete() {
          done();
          if (stream) return stream.close();
          if (redirect) return resolve(undefined);
          const body = (chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, received)) as Uint8Array<ArrayBuffer>;
          // A 204/304 answer may carry no body, and Response refuses one for them.
          const empty = status === 204 || status === 304;
          resolve(new Response(empty ? null : body, { status, headers }));
        },
        onError(error) {
          done();
          if (!stream) return reject(error);
          // As fetch's body fails: the abort's reason, else a TypeError naming undici's error.
          const reason = signal?.aborted
            ? signal.reason
            : error instanceof ReplyTooLargeError
              ? error
              : new TypeError('terminated', { cause: error });
          stream.error(reason);
        },
      },
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
 * undici's fetch through the door, following redirects itself: each hop's host is checked (and
 * the door judges the address each hop connects to), and only a download
 * (`crossOrigin`) may be sent to another origin: an API call carries the provider's key, which
 * must not follow a redirect to a host the operator never named.
 */
async function fetchFollowing(input: string | URL | Request, init: RequestInit | undefined, crossOrigin: boolean): Promise<Response> {
  let url = new URL(input instanceof Request ? input.url : String(input));
  // undici's fetch takes its own Request class only: a global Request is passed as its parts.
  const parts: RequestInit | undefined =
    input instanceof Request
      ? ({ method: input.method, headers: input.headers, body: input.body, duplex: 'half' } as RequestInit)
      : undefined;
  let request: RequestInit | undefined = parts ? { ...parts, ...init } : init;
  for (let hop = 0; ; hop++) {
    const response = (await undiciFetch(url, { ...request, redirect: 'manual', dispatcher: outboundDoor } as never).catch(
      (error: unknown) => {
        throw refusalIn(error) ?? error;
      },
    )) as unknown as Response;
    const location = response.headers.get('location');
    if (!REDIRECTS.has(response.status) || location === null) return response;
    await response.body?.cancel();
    const next = new URL(location, url);
    const refused = metadataHostOf(next);
    if (refused) throw metadataRefusal(refused);
    if (next.origin !== url.origin && !crossOrigin) {
      throw new RefusedDestinationError(`refused: the provider redirected its API call to another origin (${next.origin})`);
    }
    if (hop + 1 >= MAX_REDIRECTS) throw new RefusedDestinationError(`refused: more than ${MAX_REDIRECTS} redirects`);
    // As fetch does: 303 (and 301/302 of a POST) become a GET without a body.
    const method = (request?.method ?? 'GET').toUpperCase();
    if (response.status === 303 || ((response.status === 301 || response.status === 302) && method === 'POST')) {
      request = { ...request, method: 'GET', body: undefined };
    }
    url = next;
  }
}

export interface CappedFetchOptions {
  /** A download of a URL a provider named (no credentials sent): it may be redirected to another origin. */
  crossOriginRedirects?: boolean;
}

/**
 * fetch with each reply's size capped (see above) and, given timeoutMs, each attempt timed out.
 * Metadata and link-local hosts are refused by name, and the door refuses every connection to
 * such an address (and to a private one at an origin not allowed it); redirects stay on the
 * call's origin unless `crossOriginRedirects` (RefusedDestinationError otherwise).
 */
export async function cappedFetch(
  input: string | URL | Request,
  init?: RequestInit,
  timeoutMs?: number,
  options: CappedFetchOptions = {},
): Promise<Response> {
  const refused = metadataHostOf(input instanceof Request ? input.url : String(input));
  if (refused) throw metadataRefusal(refused);
  if (!(input instanceof Request) && init?.method === 'POST' && isPlainBody(init.body)) {
    const attempt = attemptSignal(init.signal, timeoutMs);
    let direct: Response | undefined;
    try {
      direct = await requestDirect(String(input), { ...init, body: init.body }, attempt);
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
    if (direct) return direct;
  }
  // The body of this reply is read after this returns, so its timeout must outlive the call.
  if (timeoutMs !== undefined) {
    const timeout = AbortSignal.timeout(timeoutMs);
    init = { ...init, signal: init?.signal ? AbortSignal.any([init.signal, timeout]) : timeout };
  }
  const response = await fetchFollowing(input, init, options.crossOriginRedirects === true);
  const limit = limitFor(response.headers.get('content-type'));
  const declared = response.headers.get('content-length');
  if (Number(declared ?? 0) > limit) {
    await response.body?.cancel();
    throw tooLarge(limit);
  }
  // A declared length within the cap bounds the body already (fetch never reads past it): no
  // stream wrapper per call on the common path; only a reply of unknown length is counted.
  if (!response.body || declared !== null) return response;
  let received = 0;
  const body = response.body.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        received += chunk.byteLength;
        if (received > limit) controller.error(tooLarge(limit));
        else controller.enqueue(chunk);
      },
    }),
  );
  return new Response(body, { status: response.status, statusText: response.statusText, headers: response.headers });
}

/**
 * Reads a media URL a provider's answer names: a plain GET with no headers at all, so none of
 * the provider's credentials go with it, wherever the URL or its redirects lead (their hosts
 * checked as every call's are; a private address only at the provider's own base_url origin).
 */
export function mediaFetch(timeoutMs: number): typeof fetch {
  return ((input: string | URL | Request, init?: RequestInit) =>
    cappedFetch(input instanceof Request ? input.url : input, { method: 'GET', signal: init?.signal, credentials: 'omit' }, timeoutMs, {
      crossOriginRedirects: true,
    })) as typeof fetch;
}
