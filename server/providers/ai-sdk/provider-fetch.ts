import { cappedFetch } from '../capped-fetch';

// The one fetch every AI SDK provider is built with: the size cap, a timeout per HTTP attempt
// (PROVIDER_TIMEOUT_MS, as the openai client has), and, for providers whose SDK takes no
// baseURL, the operator's base_url in place of the public origin (the SDK's path is kept).

export interface ProviderFetchOptions {
  timeoutMs: number;
  /** Replaces the origin of every URL the SDK builds (its path is appended to this URL's path). */
  origin?: string;
}

function rewriteOrigin(url: string, origin: URL): string {
  const target = new URL(url);
  const prefix = origin.pathname.replace(/\/+$/, '');
  return `${origin.protocol}//${origin.host}${prefix}${target.pathname}${target.search}`;
}

export function providerFetch(options: ProviderFetchOptions): typeof fetch {
  const origin = options.origin ? new URL(options.origin) : undefined;
  return ((input: string | URL | Request, init?: RequestInit) => {
    const url = input instanceof Request ? input.url : String(input);
    const timeout = AbortSignal.timeout(options.timeoutMs);
    const signal = init?.signal ? AbortSignal.any([init.signal, timeout]) : timeout;
    return cappedFetch(origin ? rewriteOrigin(url, origin) : url, { ...init, signal });
  }) as typeof fetch;
}
