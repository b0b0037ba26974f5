import { listeningUrl } from '../config/listening-url';
import { getConfig } from '../config';
import { getPool } from '../db/client';
import { onShutdown } from '../lifecycle/shutdown-hooks';
import { startMetricsServer } from './metrics-endpoint';
import { enableMetrics } from './metrics';
import { startRefusalFlush } from './refusal-counter';
import { flushRequestLog } from './request-log';
import { tracingState } from './tracing';

/**
 * Started with the instance, after the hook that closes the database (hooks run last first):
 * at shutdown the refused counts are written, the log buffer and the traces flushed, then the
 * pools close.
 */
export async function startObservability(log: (line: string) => void): Promise<void> {
  const config = getConfig();
  const stopFlush = startRefusalFlush(getPool, config.REFUSALS_FLUSH_MS);
  onShutdown(stopFlush);
  onShutdown(flushRequestLog);
  if (tracingState()) onShutdown(() => tracingState()!.shutdown());
  if (config.METRICS_PORT || config.METRICS_TOKEN) await enableMetrics();
  if (config.METRICS_PORT) {
    const server = await startMetricsServer(config.METRICS_PORT, config.HOST, config.METRICS_TOKEN);
    onShutdown(() => new Promise<void>((resolve) => server.close(() => resolve())));
    log(`metrics on ${listeningUrl(config.HOST, config.METRICS_PORT, '/metrics')}`);
  }
}
