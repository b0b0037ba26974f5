import { ProviderUnavailableError, type Engine } from '../../providers/engine';
import { MediaDecodeError } from '../../providers/local/media-decode-error';
import { resolveEngine } from '../../providers/resolve-engine';
import { measureProviderCall } from '../../observability/provider-calls';
import { ApiError } from '../errors';

/**
 * Resolves the named engine and runs one call on it; any failure of either (a provider the
 * package names but that is gone, a provider error) becomes 503 provider_unavailable with Retry-After.
 */
export async function callEngine<T>(engineName: string, work: (engine: Engine) => Promise<T>): Promise<T> {
  try {
    const engine = await resolveEngine(engineName);
    return await measureProviderCall(engineName, () => work(engine));
  } catch (error) {
    if (error instanceof ApiError) throw error;
    if (error instanceof MediaDecodeError) {
      // The input passed its magic-byte check but holds no usable media: the caller's to fix. The
      // decoder's sentence says what is wrong (no audio track, no frame); its cause is not shown.
      const reason = error.message.charAt(0).toLowerCase() + error.message.slice(1);
      throw ApiError.validation([{ path: 'input_upload_id', code: 'undecodable_media', message: `input_upload_id: ${reason}` }]);
    }
    if (!(error instanceof ProviderUnavailableError)) console.error('[engine] unexpected failure', error);
    const retryAfter = error instanceof ProviderUnavailableError ? error.retryAfterSeconds : 5;
    throw new ApiError('provider_unavailable', { retryAfter, cause: error });
  }
}
