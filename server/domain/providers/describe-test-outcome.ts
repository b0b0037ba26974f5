import { ProviderUnavailableError } from '../../providers/engine';

// A provider test's outcome in plain words. Only a status code and the kind of failure are
// shown: a provider's own error text can echo part of a key or an internal URL, so never it.

/** The HTTP status of the provider's answer, found on the error or its causes (OpenAI client, AI SDK). */
export function providerStatusOf(error: unknown): number | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < 6 && current && typeof current === 'object'; depth++) {
    const candidate = current as { status?: unknown; statusCode?: unknown; lastError?: unknown; cause?: unknown };
    for (const status of [candidate.status, candidate.statusCode]) {
      if (typeof status === 'number' && status >= 100 && status <= 599) return status;
    }
    current = candidate.lastError ?? candidate.cause;
  }
  return undefined;
}

export function describeTestFailure(error: unknown, timeoutMs: number, timedOut: boolean): string {
  const seconds = Math.round(timeoutMs / 1000);
  if (timedOut) return `No answer within ${seconds} s.`;
  const status = providerStatusOf(error);
  if (status === 401 || status === 403) return `The provider refused the key (${status}).`;
  if (status === 404) return 'The provider does not know this model or address (404): check the model id and the base URL.';
  if (status === 429) return "The provider is limiting this key's requests (429): try again later.";
  if (status !== undefined && status >= 500) return `The provider failed with a server error (${status}).`;
  if (status !== undefined && status >= 400) return `The provider refused the request (${status}).`;
  const kind = error instanceof ProviderUnavailableError ? error.kind : undefined;
  switch (kind) {
    case 'timeout':
      return `No answer within ${seconds} s.`;
    case 'connection':
      return 'Could not connect to the provider: check the base URL.';
    case 'malformed':
      return 'The provider answered, but not in the shape its API promises.';
    case 'not_configured':
      return 'The provider cannot be used as configured (its type, or a stored key this server cannot decrypt).';
    default:
      return 'The call failed without an answer from the provider.';
  }
}

export function describeTestSuccess(durationMs: number): string {
  return `Answered in ${durationMs} ms.`;
}
