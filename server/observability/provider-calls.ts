import { stoppedByCaller } from '../lifecycle/abort-reason';
import { observeProviderCall } from './metrics';
import { traceStep } from './tracing';

/**
 * One engine call, timed by outcome (metrics) and, when tracing, a child span of the request. A call
 * its caller stopped (`signal` aborted for another reason than a deadline: a job cancelled, a client
 * gone, the instance stopping) is `cancelled`, not the provider's error.
 */
export async function measureProviderCall<T>(engineName: string, call: () => Promise<T>, signal?: AbortSignal): Promise<T> {
  const started = performance.now();
  let outcome: 'ok' | 'error' | 'cancelled' = 'error';
  try {
    const result = await traceStep('provider_call', call, { 'wgs.engine': engineName });
    outcome = 'ok';
    return result;
  } catch (error) {
    if (stoppedByCaller(signal)) outcome = 'cancelled';
    throw error;
  } finally {
    observeProviderCall(engineName, outcome, (performance.now() - started) / 1000);
  }
}
