import { ProviderUnavailableError } from '../../providers/engine';
import { RefusedDestinationError } from '../../providers/outbound/outbound-door';

// A provider test's outcome in plain words. Only a status code and the kind of failure are
// shown: a provider's own error text can echo part of a key or an internal URL, so never it.

/** The error and its causes, nearest first (OpenAI client, AI SDK's RetryError). */
function* causesOf(error: unknown): Generator<object> {
  let current: unknown = error;
  for (let depth = 0; depth < 6 && current && typeof current === 'object'; depth++) {
    yield current;
    const candidate = current as { lastError?: unknown; cause?: unknown };
    current = candidate.lastError ?? candidate.cause;
  }
}

/** The HTTP status of the provider's answer, found on the error or its causes (OpenAI client, AI SDK). */
export function providerStatusOf(error: unknown): number | undefined {
  for (const candidate of causesOf(error)) {
    const { status, statusCode } = candidate as { status?: unknown; statusCode?: unknown };
    for (const value of [status, statusCode]) {
      if (typeof value === 'number' && value >= 100 && value <= 599) return value;
    }
  }
  return undefined;
}

/** The outbound door's refusal behind the failure: its words name the host, never an address it resolved to. */
function refusalOf(error: unknown): RefusedDestinationError | undefined {
  for (const candidate of causesOf(error)) if (candidate instanceof RefusedDestinationError) return candidate;
  return undefined;
}

export function describeTestFailure(error: unknown, timeoutMs: number, timedOut: boolean): string {
  const seconds = Math.round(timeoutMs / 1000);
  if (timedOut) return `No answer within ${seconds} s.`;
  const refusal = refusalOf(error);
  if (refusal) return `Not sent: ${refusal.message.replace(/^refused: /, '')}.`;
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
