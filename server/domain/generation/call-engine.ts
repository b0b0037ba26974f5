import { ProviderUnavailableError } from '../../providers/engine';
import { ApiError } from '../errors';

/** Runs an engine call; any engine failure becomes 503 provider_unavailable with Retry-After. */
export async function callEngine<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof ApiError) throw error;
    if (!(error instanceof ProviderUnavailableError)) console.error('[engine] unexpected failure', error);
    const retryAfter = error instanceof ProviderUnavailableError ? error.retryAfterSeconds : 5;
    throw new ApiError('provider_unavailable', { retryAfter, cause: error });
  }
}
