import { cappedFetch } from '../capped-fetch';
import { noteCancelAddress } from './provider-cancel';

// The one fetch every AI SDK provider is built with: the size cap, a timeout per HTTP attempt
// (PROVIDER_TIMEOUT_MS), and, for providers whose SDK takes no baseURL, the operator's base_url
// in place of the provider's own API hosts (the SDK's path is kept; other URLs, such as the media
// files a provider links to, are fetched as they are, but without the provider's credentials).
// A file part the SDK leaves unnamed (a Blob goes as `blob`) is named by its type (`input.jpg`):
// OpenAI refuses an image it cannot type.

export interface ProviderFetchOptions {
  timeoutMs: number;
  /** The provider's key: never sent to an origin its SDK does not call the API on. */
  apiKey?: string;
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

const CREDENTIAL_HEADERS = new Set([
  'authorization',
  'proxy-authorization',
  'cookie',
  'x-api-key',
  'api-key',
  'xi-api-key',
  'x-goog-api-key',
]);

/** The request's headers without any that could carry the provider's key. */
function withoutCredentials(headers: HeadersInit | undefined, apiKey: string | undefined): Headers {
  const kept = new Headers(headers);
  for (const [name, value] of [...kept]) {
    if (CREDENTIAL_HEADERS.has(name) || (apiKey && apiKey.length >= 8 && value.includes(apiKey))) kept.delete(name);
  }
  return kept;
}

export function providerFetch(options: ProviderFetchOptions): typeof fetch {
  const origin = options.origin ? new URL(options.origin) : undefined;
  const hosts = new Set(options.hosts ?? []);
  // Where the SDK sends its calls (every API call starts with a POST there): a GET of any other
  // origin is a download of a URL the provider named, and goes without credentials.
  const apiOrigins = new Set<string>(origin ? [origin.origin] : []);
  return ((input: string | URL | Request, init?: RequestInit) => {
    const raw = input instanceof Request ? input.url : String(input);
    const rewrite = origin !== undefined && hosts.has(new URL(raw).host);
    const url = rewrite ? rewriteOrigin(raw, origin) : raw;
    const target = new URL(url).origin;
    if (init?.body instanceof FormData) init = { ...init, body: namedFileParts(init.body) };
    const method = (init?.method ?? (input instanceof Request ? input.method : 'GET')).toUpperCase();
    if (method !== 'GET' && method !== 'HEAD') apiOrigins.add(target);
    if (apiOrigins.has(target)) {
      const answered = cappedFetch(url, init, options.timeoutMs);
      if (method !== 'POST') return answered;
      return answered.then(async (response) => {
        await noteCancelAddress(raw, response, init?.headers);
        return response;
      });
    }
    const headers = withoutCredentials(init?.headers ?? (input instanceof Request ? input.headers : undefined), options.apiKey);
    return cappedFetch(url, { ...init, headers, credentials: 'omit' }, options.timeoutMs, { crossOriginRedirects: true });
  }) as typeof fetch;
}
