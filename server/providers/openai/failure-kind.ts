import OpenAI from 'openai';
import type { ProviderFailureKind } from '../engine';

/**
 * What kind of failure an OpenAI client error is. A refused key (401, 403) or an unknown model or
 * path (404) is this provider's configuration ('not_configured': the next engine may be fine);
 * any other 4xx but 408 and 429 is the request's own fault ('rejected': the next provider would
 * likely refuse it too); timeouts, 429, 5xx and broken connections are the provider's state.
 */
export function openAiFailureKind(error: unknown): ProviderFailureKind {
  if (error instanceof OpenAI.APIConnectionTimeoutError || error instanceof OpenAI.APIUserAbortError) return 'timeout';
  if (error instanceof OpenAI.APIConnectionError) return 'connection';
  const status = (error as { status?: unknown } | null)?.status;
  if (typeof status !== 'number') return 'malformed';
  if (status === 429) return 'rate_limited';
  if (status === 408) return 'timeout';
  if (status === 401 || status === 403 || status === 404) return 'not_configured';
  if (status >= 500) return 'server_error';
  return status >= 400 ? 'rejected' : 'malformed';
}
