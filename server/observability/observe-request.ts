import { errorCodeOf } from './error-codes';
import { countUnitsCharged, observeRequest } from './metrics';
import { countRefusal } from './refusal-counter';
import { requestRecord } from './request-record';
import { logRequest } from './request-log';
import { operationOfRoute, routeLabel } from './route-label';
import { traceRequest } from './tracing';

// The edge every /v1 answer passes (routeMethods): counts a refusal, records the metrics,
// writes the log line and, when tracing, wraps the request in its span. In-memory work only.

type Handler<C> = (request: Request, next?: C) => Promise<Response>;

export function observed<C>(handler: Handler<C>): Handler<C> {
  return async (request, next) => {
    const started = performance.now();
    const { pathname } = new URL(request.url);
    if (!pathname.startsWith('/v1')) return handler(request, next);
    const route = routeLabel(pathname);
    const response = await traceRequest(
      `${request.method} ${route}`,
      () => handler(request, next),
      (answer, span) => {
        const record = requestRecord(request);
        span.setAttributes({
          'http.request.method': request.method,
          'http.route': route,
          'http.response.status_code': answer.status,
          'wgs.request_id': answer.headers.get('x-request-id') ?? '',
          'wgs.operation': record?.operation ?? operationOfRoute(route),
          ...(record?.keyPrefix ? { 'wgs.key_prefix': record.keyPrefix } : {}),
          ...(record?.engine ? { 'wgs.engine': record.engine } : {}),
          ...(errorCodeOf(answer) ? { 'wgs.error_code': errorCodeOf(answer)! } : {}),
        });
      },
    );
    finish(request, response, route, started);
    return response;
  };
}

function finish(request: Request, response: Response, route: string, started: number): void {
  const ms = performance.now() - started;
  const { status } = response;
  const record = requestRecord(request);
  const operation = record?.operation ?? operationOfRoute(route);
  const code = status >= 400 ? (errorCodeOf(response) ?? 'unknown') : undefined;
  // After the hold an error is the engine's, and its usage event already says so.
  if (code && !record?.held) countRefusal(record?.keyId, operation, status, code);
  // A stream's units are counted when its `done` is written (observeStreamCharged), not as it begins.
  const streamed = response.headers.get('content-type')?.startsWith('text/event-stream') ?? false;
  const charged = status === 200 && record?.held && record.units && !streamed && !response.headers.has('idempotent-replayed');
  if (charged) countUnitsCharged(record.packageSlug ?? '', operation, record.units!);
  observeRequest(route, request.method, status, code ?? '', ms / 1000);
  logRequest({
    request_id: response.headers.get('x-request-id') ?? '',
    method: request.method,
    route,
    key_prefix: record?.keyPrefix,
    package: record?.packageSlug,
    operation,
    status,
    code,
    units: charged ? record.units : 0,
    engine: record?.engine,
    duration_ms: Math.round(ms * 10) / 10,
  });
}

/** A streamed answer was charged (its `done` is being written): its units join the metric. */
export function observeStreamCharged(request: Request): void {
  const record = requestRecord(request);
  if (record?.units) countUnitsCharged(record.packageSlug ?? '', record.operation ?? 'unknown', record.units);
}
