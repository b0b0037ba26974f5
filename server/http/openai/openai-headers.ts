import type { RateState } from '../../domain/rate-limit/request-rate';

// What a client of the OpenAI-compatible surface reads in headers: the minute's requests as OpenAI
// names them (`x-ratelimit-limit-requests`, `-remaining-requests`, `-reset-requests`), and the units
// this call charged and the key has left (`x-wgs-units-charged`, `x-wgs-units-remaining`), since an
// OpenAI body has no place for them.

/** The minute's count in OpenAI's headers. */
export function rateHeadersOf(state: RateState): Record<string, string> {
  return {
    'x-ratelimit-limit-requests': String(state.limit),
    'x-ratelimit-remaining-requests': String(state.remaining),
    'x-ratelimit-reset-requests': `${state.resetSeconds}s`,
  };
}

/** The same from /v1's RateLimit-* headers, which a refused request's error carries; nothing without them. */
export function openAIRateHeaders(headers: Record<string, string>): Record<string, string> {
  const limit = headers['RateLimit-Limit'];
  const remaining = headers['RateLimit-Remaining'];
  const reset = headers['RateLimit-Reset'];
  if (limit === undefined || remaining === undefined || reset === undefined) return {};
  return rateHeadersOf({ limit: Number(limit), remaining: Number(remaining), resetSeconds: Number(reset) });
}

/** The units a call charged and the key's balance right after it. */
export function unitHeaders(usage: { charged_units: number; remaining_units: number }): Record<string, string> {
  return { 'x-wgs-units-charged': String(usage.charged_units), 'x-wgs-units-remaining': String(usage.remaining_units) };
}

/** `response` with `headers` set on it. */
export function withHeaders(response: Response, headers: Record<string, string>): Response {
  for (const [name, value] of Object.entries(headers)) response.headers.set(name, value);
  return response;
}
