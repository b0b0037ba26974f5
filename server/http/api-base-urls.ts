import { forwardedHeadersTrusted } from '../auth/client-address';
import { publicOrigin } from '../auth/forwarded';
import { getConfig } from '../config';

// The two base URLs a customer points a client at (/buy, the buyer's success page, the portal):
// the service's own /v1 and the OpenAI-compatible /openai/v1, at the origin the page was asked
// for (PUBLIC_BASE_URL when set), as the API's answers name it.

export interface ApiBaseUrls {
  v1: string;
  openai: string;
}

export function apiBaseUrls(pageHeaders: Headers): ApiBaseUrls {
  let url = 'http://localhost/';
  try {
    url = new URL(`http://${pageHeaders.get('host') ?? 'localhost'}/`).href;
  } catch {
    // a malformed Host: publicOrigin falls back to the next candidate
  }
  const origin = publicOrigin(new Request(url, { headers: pageHeaders }), getConfig().PUBLIC_BASE_URL, forwardedHeadersTrusted(undefined));
  return { v1: `${origin}/v1`, openai: `${origin}/openai/v1` };
}
