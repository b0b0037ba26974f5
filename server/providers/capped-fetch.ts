import { lookup, type LookupAddress, type LookupOptions } from 'node:dns';
import { isIP } from 'node:net';
import { Agent } from 'undici';
import { isMetadataHost, metadataHostOf } from './metadata-hosts';

// The fetch every provider client is built with. A provider's reply may hold at most: JSON (text,
// code, base64 images) 16 MiB, media 100 MiB; a larger reply, read whole, would exhaust the
// server's heap, so it is cut off as a provider failure.
//
// API calls (a POST whose body is text or bytes, the hot path) go through undici's `dispatch` on
// one pooled keep-alive agent: a third of the CPU of the global fetch, and out of reach of the
// fetch Next.js patches. Everything else (form uploads, redirects, media downloads) uses the
// global fetch. See docs/performance.md, "What each runtime setting buys".

const JSON_REPLY_LIMIT = 16 * 1024 * 1024;
const MEDIA_REPLY_LIMIT = 104_857_600;

/** A call refused before it was sent: its URL, or a redirect, leads where no provider call may go. */
export class RefusedDestinationError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'RefusedDestinationError';
  }
}

const metadataRefusal = (host: string) => new RefusedDestinationError(`refused: ${host} is a cloud metadata or link-local address`);

type LookupCallback = (error: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/** DNS as usual, but a name that resolves to a metadata or link-local address is not connected to. */
function guardedLookup(hostname: string, options: LookupOptions, callback: LookupCallback): void {
  lookup(hostname, { ...options, all: true }, (error, addresses) => {
    if (error || addresses.length === 0) {
      const failure = error ?? Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
      return callback(failure, options.all ? [] : '');
    }
    const refused = addresses.find((entry) => isMetadataHost(entry.address));
    if (refused) return callback(Object.assign(metadataRefusal(`${hostname} (${refused.address})`), { code: 'EREFUSED' }), '');
    if (options.all) return callback(null, addresses);
    callback(null, addresses[0]!.address, addresses[0]!.family);
  });
}

/** The same check for the global fetch path (downloads, forms), which does not use the agent. */
async function refuseResolvedMetadata(url: URL): Promise<void> {
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (host === '' || isIP(host) !== 0 || (url.protocol !== 'http:' && url.protocol !== 'https:')) return;
  await new Promise<void>((resolve, reject) =>
    guardedLookup(host, {}, (error) => (error && error instanceof RefusedDestinationError ? reject(error) : resolve())),
  );
}

const agent = new Agent({ keepAliveTimeout: 30_000, connections: 256, connect: { lookup: guardedLookup as never } });
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

/**
 * A POST of text or bytes through the pooled agent's `dispatch`: the reply is gathered by plain
 * callbacks (no stream or async resource per call). Undefined when the answer is a redirect (the
 * caller then uses fetch). Rejects with the abort's reason, ReplyTooLargeError or undici's error.
 */
function requestDirect(url: string, init: RequestInit & { body: string | Uint8Array }, signal: AbortSignal | undefined) {
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
    const onAbort = () => abort?.(signal!.reason);
    signal?.addEventListener('abort', onAbort, { once: true });
    const done = () => signal?.removeEventListener('abort', onAbort);
    const cutOff = (error: Error) => {
      abort?.(error);
      return false;
    };
    agent.dispatch(
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
          return true;
        },
        onData(chunk) {
          if (redirect) return true;
          received += chunk.byteLength;
          if (received > limit) return cutOff(tooLarge(limit));
          chunks.push(chunk);
          return true;
        },
        onComplete() {
          done();
          if (redirect) return resolve(undefined);
          const body = (chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, received)) as Uint8Array<ArrayBuffer>;
          // A 204/304 answer may carry no body, and Response refuses one for them.
          const empty = status === 204 || status === 304;
          resolve(new Response(empty ? null : body, { status, headers }));
        },
        onError(error) {
          done();
          reject(error);
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
function attemptSignal(outer: AbortSignal | null | undefined, timeoutMs: number | undefined) {
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
 * The global fetch, following redirects itself: each hop's host is checked, and only a download
 * (`crossOrigin`) may be sent to another origin: an API call carries the provider's key, which
 * must not follow a redirect to a host the operator never named.
 */
async function fetchFollowing(input: string | URL | Request, init: RequestInit | undefined, crossOrigin: boolean): Promise<Response> {
  let url = new URL(input instanceof Request ? input.url : String(input));
  let request: RequestInit | undefined = init;
  for (let hop = 0; ; hop++) {
    await refuseResolvedMetadata(url);
    const response = await fetch(hop === 0 ? input : url, { ...request, redirect: 'manual' });
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
 * Metadata and link-local hosts are refused, by name and by what a name resolves to; redirects
 * stay on the call's origin unless `crossOriginRedirects` (RefusedDestinationError otherwise).
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
      direct = await requestDirect(String(input), { ...init, body: init.body }, attempt.signal);
    } catch (error) {
      // Failing as fetch fails, so every client reads it as it always has: an abort is the signal's
      // reason; a refused, reset or cut connection a TypeError "fetch failed" with its cause.
      if (attempt.signal?.aborted) throw attempt.signal.reason;
      if (error instanceof ReplyTooLargeError || error instanceof RefusedDestinationError) throw error;
      throw new TypeError('fetch failed', { cause: error });
    } finally {
      attempt.done();
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
 * checked as every call's are).
 */
export function mediaFetch(timeoutMs: number): typeof fetch {
  return ((input: string | URL | Request, init?: RequestInit) =>
    cappedFetch(input instanceof Request ? input.url : input, { method: 'GET', signal: init?.signal, credentials: 'omit' }, timeoutMs, {
      crossOriginRedirects: true,
    })) as typeof fetch;
}
