import type { Span, Tracer } from '@opentelemetry/api';
import { getConfig } from '../config';

// OpenTelemetry traces, opt-in by OTEL_EXPORTER_OTLP_ENDPOINT. Off, nothing of the SDK is
// loaded and each helper below is one property read and a direct call.

interface TracingState {
  tracer: Tracer;
  api: typeof import('@opentelemetry/api');
  forceFlush(): Promise<void>;
  shutdown(): Promise<void>;
}

let current: TracingState | undefined;

export function tracingState(): TracingState | undefined {
  return current;
}

/**
 * Starts the SDK: spans batched to the OTLP/HTTP endpoint (the exporter reads the standard
 * OTEL_EXPORTER_OTLP_* variables), PostgreSQL statements as children of the request's span.
 */
export async function startTracing(serviceName = getConfig().OTEL_SERVICE_NAME || 'workflow-generation-service'): Promise<TracingState> {
  if (current) return current;
  const [api, { NodeTracerProvider, BatchSpanProcessor }, { OTLPTraceExporter }, { resourceFromAttributes }, { PgInstrumentation }, pg] =
    await Promise.all([
      import('@opentelemetry/api'),
      import('@opentelemetry/sdk-trace-node'),
      import('@opentelemetry/exporter-trace-otlp-http'),
      import('@opentelemetry/resources'),
      import('@opentelemetry/instrumentation-pg'),
      import('pg'),
    ]);
  const provider = new NodeTracerProvider({
    resource: resourceFromAttributes({ 'service.name': serviceName }),
    spanProcessors: [new BatchSpanProcessor(new OTLPTraceExporter())],
  });
  provider.register();
  // Only statements made inside a traced request (not the sweeps' every 15 s).
  const instrumentation = new PgInstrumentation({ requireParentSpan: true });
  instrumentation.setTracerProvider(provider);
  // pg is loaded before this runs (the launcher migrated the database with it): patch that copy.
  const pgModule = (pg as { default?: unknown }).default ?? pg;
  for (const definition of instrumentation.getModuleDefinitions()) {
    if (definition.name === 'pg') definition.patch?.(pgModule, undefined);
  }
  const state: TracingState = {
    tracer: provider.getTracer('workflow-generation-service'),
    api,
    forceFlush: () => provider.forceFlush(),
    shutdown: () => provider.shutdown(),
  };
  current = state;
  return state;
}

/** Runs `work` in a child span of the current one (a pipeline step, a provider call). */
export function traceStep<T>(name: string, work: () => Promise<T>, attributes?: Record<string, string | number>): Promise<T> {
  const tracing = current;
  if (!tracing) return work();
  return tracing.tracer.startActiveSpan(name, { attributes }, (span) => endWith(tracing, span, work));
}

/** Runs `work` in a server span; `finish` adds what the answer taught before the span ends. */
export function traceRequest<T>(name: string, work: () => Promise<T>, finish: (result: T, span: Span) => void): Promise<T> {
  const tracing = current;
  if (!tracing) return work();
  return tracing.tracer.startActiveSpan(name, { kind: tracing.api.SpanKind.SERVER }, async (span) => {
    try {
      const result = await work();
      finish(result, span);
      return result;
    } catch (error) {
      span.recordException(error as Error);
      span.setStatus({ code: tracing.api.SpanStatusCode.ERROR });
      throw error;
    } finally {
      span.end();
    }
  });
}

async function endWith<T>(tracing: TracingState, span: Span, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    span.recordException(error as Error);
    span.setStatus({ code: tracing.api.SpanStatusCode.ERROR });
    throw error;
  } finally {
    span.end();
  }
}
