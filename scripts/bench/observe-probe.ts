// What observing one /v1 answer costs (server/observability/observe-request.ts: refusal count,
// request metric, log line; no span without an exporter), in-process, without a database: a
// handler that answers a ready 200 or a 422, called with and without the observation, with
// metrics on and the JSON request log written asynchronously to /dev/null (the defaults of
// production). Run: npx tsx scripts/bench/observe-probe.ts (target: at most 50 µs CPU per request)
import { openSync } from 'node:fs';
import pino from 'pino';
import { runProbe } from './run-probe';

const N = 100_000;

async function cpuPerCall(f: () => Promise<unknown>): Promise<number> {
  for (let i = 0; i < 20_000; i++) await f();
  const c0 = process.cpuUsage();
  for (let i = 0; i < N; i++) await f();
  const c = process.cpuUsage(c0);
  return (c.user + c.system) / N;
}

async function main() {
  process.env.SIGNING_SECRET = 'x'.repeat(40);
  const { enableMetrics } = await import('../../server/observability/metrics');
  const { useRequestLogger: setRequestLogger, createRequestLogger } = await import('../../server/observability/request-log');
  const { observer } = await import('../../server/observability/observe-request');
  const { jsonText, toErrorResponse } = await import('../../server/http/responses');
  const { ApiError } = await import('../../server/domain/errors');
  await enableMetrics();
  const devNull = pino.destination({ dest: openSync('/dev/null', 'w'), sync: false, minLength: 4096 });
  setRequestLogger(createRequestLogger('json', devNull as unknown as NodeJS.WritableStream));
  const route = { label: '/v1/text/generate', operation: 'text.generate' };
  const request = new Request('http://127.0.0.1/v1/text/generate', { method: 'POST' });
  const ok = async () => jsonText(200, '{"output":"x"}', 'req_0123456789');
  const refused = async (record = {}) => toErrorResponse(new ApiError('validation_error', { message: 'bad' }), 'req_0123456789', record);
  for (const [name, handler] of [
    ['200', ok],
    ['422', refused],
  ] as const) {
    const bare = await cpuPerCall(() => handler());
    const observe = observer(route);
    const withObservation = await cpuPerCall(() => observe(request, handler));
    console.log(
      `${name}: handler ${bare.toFixed(1)} µs, observed ${withObservation.toFixed(1)} µs: observation ${(withObservation - bare).toFixed(1)} µs CPU per request`,
    );
  }
  devNull.flushSync();
}

runProbe(main);
