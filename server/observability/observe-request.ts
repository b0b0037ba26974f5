import { countUnitsCharged, requestMeter, type RequestMeter } from './metrics';
import { countRefusal } from './refusal-counter';
import type { RequestRecord } from './request-record';
import { logRequest } from './request-log';
import { tracingState, traceRequest } from './tracing';

// The edge every /v1 answer passes (the surface's app, server/surfaces): counts a refusal,
// records the metrics, writes the log line and, when tracing, wraps the request in its span. In-memory work only,
// and little of it: the route's label, operation and metric series are prepared once per route.

/** A route as logs, metrics and traces name it (from its spec in server/http/routes). */
export interface ObservedRoute {
  label: string;
  operation: string;
}

/** Makes a request's answer, filling the record it is given. */
export type RecordedAnswer = (record: RequestRecord) => Promise<Response>;

/** Observes each answer of `route`: `answer` is called with the request's new record. */
export function observer(route: ObservedRoute): (request: Request, answer: RecordedAnswer) => Promise<Response> {
  const meter = requestMeter(route.label);
  return async (request, answer) => {
    const started = performance.now();
    const record: RequestRecord = {};
    const response = tracingState() ? await traced(answer, record, route, request) : await answer(record);
    if (!isLiveStream(response)) {
      finish(request, response, record, route, meter, started);
      return response;
    }
    // A stream is counted and logged once it is over and settled: its units (charged or not) and its whole time.
    return whenBodyEnds(response, () => {
      const ended = performance.now();
      const log = () => finish(request, response, record, route, meter, started, ended);
      void Promise.resolve(record.streamSettled).then(log, log);
    });
  };
}

const isEventStream = (headers: Headers): boolean => Boolean(headers.get('content-type')?.startsWith('text/event-stream'));

/** A 200 event stream being generated now (not the replay of a stored one). */
function isLiveStream(response: Response): boolean {
  return (
    response.status === 200 && response.body !== null && isEventStream(response.headers) && !response.headers.has('idempotent-replayed')
  );
}

/** The response with its body passed through unchanged, `ended` told once when it ends, fails or its client goes. */
function whenBodyEnds(response: Response, ended: () => void): Response {
  const reader = response.body!.getReader();
  let over = false;
  const end = () => {
    if (over) return;
    over = true;
    ended();
  };
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const chunk = await reader.read();
        if (chunk.done) {
          controller.close();
          end();
        } else controller.enqueue(chunk.value);
      } catch (error) {
        controller.error(error);
        end();
      }
    },
    cancel(reason) {
      end();
      return reader.cancel(reason);
    },
  });
  return new Response(body, { status: response.status, statusText: response.statusText, headers: response.headers });
}

/** The request in a server span (only when an exporter is configured). */
function traced(answer: RecordedAnswer, record: RequestRecord, route: ObservedRoute, request: Request): Promise<Response> {
  return traceRequest(
    `${request.method} ${route.label}`,
    () => answer(record),
    (response, span) => {
      span.setAttributes({
        'http.request.method': request.method,
        'http.route': route.label,
        'http.response.status_code': response.status,
        'wgs.request_id': response.headers.get('x-request-id') ?? '',
        'wgs.operation': record.operation ?? route.operation,
        ...(record.keyPrefix ? { 'wgs.key_prefix': record.keyPrefix } : {}),
        ...(record.engine ? { 'wgs.engine': record.engine } : {}),
        ...(record.errorCode ? { 'wgs.error_code': record.errorCode } : {}),
      });
    },
  );
}

/** The status logged and counted for a request whose client left before any output (no answer was sent). */
const CLIENT_CLOSED_REQUEST = 499;

/** Whether a 200 charged its units now (a stream's are counted when its `done` is written). */
function chargedNow(response: Response, record: RequestRecord): boolean {
  if (response.status !== 200 || !record.held || !record.units) return false;
  return !isEventStream(response.headers) && !response.headers.has('idempotent-replayed');
}

function finish(
  request: Request,
  response: Response,
  record: RequestRecord,
  route: ObservedRoute,
  meter: RequestMeter,
  started: number,
  ended = performance.now(),
): void {
  const ms = ended - started;
  // A client gone before any output received no answer: 499 (nginx's "client closed request"),
  // neither the provider's failure nor a success, as its usage event says.
  const status = record.clientGone ? CLIENT_CLOSED_REQUEST : response.status;
  const operation = record.operation ?? route.operation;
  // A stream answered 200 that ended in an `error` event has that event's code.
  const code = record.clientGone ? 'client_disconnected' : status >= 400 ? (record.errorCode ?? 'unknown') : record.errorCode;
  // After the hold an error is the engine's, and its usage event already says so; a 200 (a replayed
  // stream ending in its stored error) is no refusal.
  if (code && !record.held && status >= 400) countRefusal(record.keyId, operation, status, code);
  const charged = chargedNow(response, record);
  if (charged) countUnitsCharged(record.packageSlug ?? '', operation, record.units!);
  meter.observe(request.method, status, code ?? '', ms / 1000);
  logRequest({
    request_id: response.headers.get('x-request-id') ?? '',
    method: request.method,
    route: route.label,
    key_prefix: record.keyPrefix,
    package: record.packageSlug,
    operation,
    status,
    code,
    units: charged || record.streamCharged ? record.units : 0,
    engine: record.engine,
    cause: record.storeAway ? 'store_unavailable' : undefined,
    duration_ms: Math.round(ms * 10) / 10,
  });
}

/** A streamed answer was charged (its `done` is being written): its units join the metric. */
export function observeStreamCharged(record: RequestRecord): void {
  record.streamCharged = true;
  if (record.units) countUnitsCharged(record.packageSlug ?? '', record.operation ?? 'unknown', record.units);
}
