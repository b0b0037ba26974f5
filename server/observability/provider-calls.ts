import { observeProviderCall } from './metrics';
import { traceStep } from './tracing';

/** One engine call, timed by outcome (metrics) and, when tracing, a child span of the request. */
export async function measureProviderCall<T>(engineName: string, call: () => Promise<T>): Promise<T> {
  const started = performance.now();
  let outcome: 'ok' | 'error' = 'error';
  try {
    const result = await traceStep('provider_call', call, { 'wgs.engine': engineName });
    outcome = 'ok';
    return result;
  } finally {
    observeProviderCall(engineName, outcome, (performance.now() - started) / 1000);
  }
}
