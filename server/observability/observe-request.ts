import { errorCodeOf } from './error-codes';
import { countUnitsCharged, requestMeter, type RequestMeter } from './metrics';
import { countRefusal } from './refusal-counter';
import { requestRecord, type RequestRecord } from './request-record';
import { logRequest } from './request-log';
import { tracingState, traceRequest } from './tracing';

// The edge every /v1 answer passes (route-methods.ts): counts a refusal, records the metrics,
// writes the log line and, when tracing, wraps the request in its span. In-memory work only,
// and little of it: the route's label, operation and metric series are prepared once per route.

type Handler<C> = (request: Request, next?: C) => Promise<Response>;

/** A route as logs, metrics and traces name it (from its spec in server/http/routes). */
export interface ObservedRoute {
  label: string;
  operation: string;
}

export function observed<C>(handler: Handler<C>, route: ObservedRoute): Handler<C> {
  const meter = requestMeter(route.label);
  return async (request, next) => {
    const started = performance.now();
    const response = tracingState() ? await traced(handler, route, request, next) : await handler(request, next);
    finish(request, response, route, meter, started);
    return response;
  };
}

/** The request in a server span (only when an exporter is configured). */
function traced<C>(handler: Handler<C>, route: ObservedRoute, request: Request, next: C | undefined): Promise<Response> {
  return traceRequest(
    `${request.method} ${route.label}`,
    () => handler(request, next),
    (answer, span) => {
      const record = requestRecord(request);
      const code = errorCodeOf(answer);
      span.setAttributes({
        'http.request.method': request.method,
        'http.route': route.label,
        'http.response.status_code': answer.status,
        'wgs.request_id': answer.headers.get('x-request-id') ?? '',
        'wgs.operation': record?.operation ?? route.operation,
        ...(record?.keyPrefix ? { 'wgs.key_prefix': record.keyPrefix } : {}),
        ...(record?.engine ? { 'wgs.engine': record.engine } : {}),
        ...(code ? { 'wgs.error_code': code } : {}),
      });
    },
  );
}

/** Whether a 200 charged its units now (a stream's are counted when its `done` is written). */
function chargedNow(response: Response, record: RequestRecord | undefined): boolean {
  if (response.status !== 200 || !record?.held || !record.units) return false;
  const headers = response.headers;
  return !headers.get('content-type')?.startsWith('text/event-stream') && !headers.has('idempotent-replayed');
}

function finish(request: Request, response: Response, route: ObservedRoute, meter: RequestMeter, started: number): void {
  const ms = performance.now() - started;
  const { status } = response;
  const record = requestRecord(request);
  const operation = record?.operation ?? route.operation;
  const code = status >= 400 ? (errorCodeOf(response) ?? 'unknown') : undefined;
  // After the hold an error is the engine's, and its usage event already says so.
  if (code && !record?.held) countRefusal(record?.keyId, operation, status, code);
  const charged = chargedNow(response, record);
  if (charged) countUnitsCharged(record!.packageSlug ?? '', operation, record!.units!);
  meter.observe(request.method, status, code ?? '', ms / 1000);
  logRequest({
    request_id: response.headers.get('x-request-id') ?? '',
    method: request.method,
    route: route.label,
    key_prefix: record?.keyPrefix,
    package: record?.packageSlug,
    operation,
    status,
    code,
    units: charged ? record!.units : 0,
    engine: record?.engine,
    duration_ms: Math.round(ms * 10) / 10,
  });
}

/** A streamed answer was charged (its `done` is being written): its units join the metric. */
export function observeStreamCharged(request: Request): void {
  const record = requestRecord(request);
  if (record?.units) countUnitsCharged(record.packageSlug ?? '', record.operation ?? 'unknown', record.units);
}
