import { AsyncLocalStorage } from 'node:async_hooks';

// Asking a provider to cancel an asynchronous job (a video) the SDK started and polls. The SDK
// keeps the job's id to itself, so the provider's fetch notes the cancel address the provider's
// own answer names, per call: fal's queue answers `cancel_url` (PUT; else its `response_url` +
// `/cancel`, as fal documents), Replicate's prediction `urls.cancel` (POST). Other types name
// none (OpenAI's videos can only be deleted once finished; Google's Veo operations, xAI's videos
// and the gateway's stream have no cancel): for them stopping the polls is all there is.

interface CancelHandle {
  url: string;
  method: 'PUT' | 'POST';
  /** The headers of the call that started the job (its credentials), for the cancel. */
  headers: HeadersInit | undefined;
}

interface ProviderCall {
  cancel?: CancelHandle;
}

const currentCall = new AsyncLocalStorage<ProviderCall>();

/** The fetch a provider's client was given (its capped fetch). */
type Fetch = (input: string | URL | Request, init?: RequestInit) => Promise<Response>;

function cancelOf(body: unknown): Pick<CancelHandle, 'url' | 'method'> | undefined {
  if (typeof body !== 'object' || body === null) return undefined;
  const answer = body as { cancel_url?: unknown; response_url?: unknown; urls?: { cancel?: unknown } };
  if (typeof answer.cancel_url === 'string') return { url: answer.cancel_url, method: 'PUT' };
  if (typeof answer.response_url === 'string') return { url: `${answer.response_url}/cancel`, method: 'PUT' };
  if (typeof answer.urls?.cancel === 'string') return { url: answer.urls.cancel, method: 'POST' };
  return undefined;
}

/**
 * Notes the cancel address named by a provider's answer to `url` (a POST that started a job;
 * within withProviderCancel only). An address on another origin than the call's is ignored: the
 * cancel carries the call's credentials.
 */
export async function noteCancelAddress(url: string, response: Response, headers: HeadersInit | undefined): Promise<void> {
  const call = currentCall.getStore();
  if (!call || call.cancel || !response.ok || !response.headers.get('content-type')?.includes('json')) return;
  const found = cancelOf(
    await response
      .clone()
      .json()
      .catch(() => undefined),
  );
  if (found && URL.canParse(found.url) && new URL(found.url).origin === new URL(url).origin) call.cancel = { ...found, headers };
}

/**
 * Runs `work` (an SDK call that starts a job and polls it) and, when it ends because `signal`
 * fired (a cancelled job, the attempt's deadline), asks the provider to cancel the job it started.
 */
export async function withProviderCancel<T>(fetch: Fetch | undefined, signal: AbortSignal, work: () => Promise<T>): Promise<T> {
  const call: ProviderCall = {};
  try {
    return await currentCall.run(call, work);
  } catch (error) {
    if (fetch && signal.aborted && call.cancel) await requestCancel(fetch, call.cancel);
    throw error;
  }
}

async function requestCancel(fetch: Fetch, cancel: CancelHandle): Promise<void> {
  try {
    const response = await fetch(cancel.url, { method: cancel.method, headers: cancel.headers });
    await response.body?.cancel();
    if (!response.ok) console.error(`[provider] cancel answered HTTP ${response.status}`);
  } catch {
    console.error('[provider] cancel could not be sent'); // best effort: the job is settled either way
  }
}
