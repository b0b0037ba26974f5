// Next.js calls register() once when a server instance starts, and serves no request before
// it returns. Under `npm start` the launcher has started tracing and the instance already (both
// once per process, in the same modules: Next loads the server package unbundled), so this finds
// them running; under `next dev` it starts them.
export async function register() {
  if (process.env.NEXT_RUNTIME !== 'nodejs' || process.env.NEXT_PHASE === 'phase-production-build') return;
  const { getConfig, startInstance, startTracing } = await import('@wgs/server/next');
  const config = getConfig();
  if (!config.DATABASE_URL) return;
  // Traces only when an OTLP endpoint is configured: otherwise no part of the SDK is loaded.
  if (config.OTEL_EXPORTER_OTLP_ENDPOINT || config.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) await startTracing();
  await startInstance();
}
