import { fetch as undiciFetch } from 'undici';
import { postDirect } from './direct-post';
import { metadataHostOf } from './metadata-hosts';
import { RefusedDestinationError, refusalIn, refusedHost } from './outbound/outbound-door';
import { providerDoor } from './outbound/provider-door';
import { limitFor, tooLarge } from './reply-limits';

// The fetch every provider client is built with. Each reply is capped in size (reply-limits.ts):
// a larger one is cut off as a provider failure.
//
// Every request goes through the providers' door (outbound/provider-door.ts), which judges the
// address each connection reaches. API calls (a POST whose body is text or bytes, the hot path)
// use undici's `dispatch` on the door (direct-post.ts). Everything else (form uploads, redirects,
// media downloads) uses undici's fetch with the door as its dispatcher. See docs/performance.md,
// "What each runtime setting buys".

export { RefusedDestinationError };

const metadataRefusal = (host: string) => refusedHost(host, 'metadata');

const REDIRECTS = new Set([301, 302, 303, 307, 308]);
const MAX_REDIRECTS = 5;

function isPlainBody(body: unknown): body is string | Uint8Array {
  return typeof body === 'string' || body instanceof Uint8Array;
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
    const response = (await undiciFetch(url, { ...request, redirect: 'manual', dispatcher: providerDoor } as never).catch(
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
 * fetch with each reply's size capped (reply-limits.ts) and, given timeoutMs, each attempt timed out.
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
    const direct = await postDirect(String(input), { ...init, body: init.body }, timeoutMs);
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
