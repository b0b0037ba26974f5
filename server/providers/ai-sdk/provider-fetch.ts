import { cappedFetch } from '../capped-fetch';

// The one fetch every AI SDK provider is built with: the size cap, a timeout per HTTP attempt
// (PROVIDER_TIMEOUT_MS), and, for providers whose SDK takes no baseURL, the operator's base_url
// in place of the provider's own API hosts (the SDK's path is kept; other URLs, such as the media
// files a provider links to, are fetched as they are). A file part the SDK leaves unnamed (a
// Blob goes as `blob`) is named by its type (`input.jpg`): OpenAI refuses an image it cannot type.

export interface ProviderFetchOptions {
  timeoutMs: number;
  /** Replaces the origin of URLs on `hosts` (their path is appended to this URL's path). */
  origin?: string;
  hosts?: readonly string[];
}

const EXTENSION: Record<string, string> = { 'image/png': 'png', 'image/jpeg': 'jpg', 'image/webp': 'webp' };

function namedFileParts(body: FormData): FormData {
  let unnamed = false;
  body.forEach((value) => (unnamed ||= value instanceof File && value.name === 'blob'));
  if (!unnamed) return body;
  const named = new FormData();
  body.forEach((value, key) => {
    if (value instanceof File && value.name === 'blob') {
      const extension = EXTENSION[value.type] ?? value.type.split('/')[1]?.replace(/[^a-z0-9]/g, '') ?? 'bin';
      named.append(key, value, `input.${extension || 'bin'}`);
    } else named.append(key, value);
  });
  return named;
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
    if (init?.body instanceof FormData) init = { ...init, body: namedFileParts(init.body) };
    return cappedFetch(rewrite ? rewriteOrigin(url, origin) : url, init, options.timeoutMs);
  }) as typeof fetch;
}
