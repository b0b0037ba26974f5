import { cappedFetch } from '../capped-fetch';

// The one fetch every AI SDK provider is built with: the size cap, a timeout per HTTP attempt
// (PROVIDER_TIMEOUT_MS, as the openai client has), and, for providers whose SDK takes no
// baseURL, the operator's base_url in place of the provider's own API hosts (the SDK's path is
// kept; other URLs, such as the media files a provider links to, are fetched as they are).

export interface ProviderFetchOptions {
  timeoutMs: number;
  /** Replaces the origin of URLs on `hosts` (their path is appended to this URL's path). */
  origin?: string;
  hosts?: readonly string[];
}

function rewriteOrigin(url: string, origin: URL): string {
  const target = new URL(url);
  const prefix = origin.pathname.replace(/\/+$/, '');
  return `${origin.protocol}//${origin.host}${prefix}${target.pathname}${target.search}`;
}

export function providerFetch(options: ProviderFetchOptions): typeof fetch {
  const origin = options.origin ? new URL(options.origin) : undefined;
  const hosts = new Set(options.hosts ?? []);
  return ((input: string | URL | Request, init?: RequestInit) => {
    const url = input instanceof Request ? input.url : String(input);
    const rewrite = origin !== undefined && hosts.has(new URL(url).host);
    return cappedFetch(rewrite ? rewriteOrigin(url, origin) : url, init, options.timeoutMs);
  }) as typeof fetch;
}
