import type { Counter, Gauge, Histogram, Registry } from 'prom-client';

// Prometheus metrics of this instance, kept in memory. Nothing is recorded unless METRICS_PORT
// or METRICS_TOKEN is set (enableMetrics at start): each recorder is then a label lookup and
// an add. Database-wide gauges (holds, jobs) are read only when scraped (database-gauges.ts).

export interface Metrics {
  registry: Registry;
  requests: Histogram<'route' | 'method' | 'status' | 'code'>;
  unitsCharged: Counter<'package' | 'operation'>;
  providerCalls: Histogram<'provider' | 'model' | 'outcome'>;
  fallbacks: Counter<'operation' | 'from' | 'to'>;
  providerCost: Counter<'provider' | 'model'>;
  unpricedCalls: Counter<'provider' | 'model'>;
  webhookAttempts: Counter<'outcome'>;
  salesAlerts: Counter<'reason'>;
  logLinesDropped: Counter;
  batchSizes: Histogram<'statement'>;
  writeSeconds: Histogram<'statement'>;
  holdsOpen: Gauge;
  heldUnits: Gauge;
  videoJobs: Gauge<'state'>;
  videoQueueAge: Gauge;
  dbPool: Gauge<'pool' | 'state'>;
  databaseUp: Gauge;
}

// One registry per process, made by whichever asks first (the instance as it starts, a test).
let current: Metrics | undefined;
let enabling: Promise<Metrics> | undefined;

export function currentMetrics(): Metrics | undefined {
  return current;
}

const DURATION_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];
const BATCH_BUCKETS = [1, 2, 4, 8, 16, 32, 64];
/** A paid call's write: ~1 ms alone on an idle database; tens of ms behind a slow statement of its kind. */
const WRITE_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1];

type PromClient = typeof import('prom-client');
type RecordedMetrics = Pick<
  Metrics,
  | 'requests'
  | 'unitsCharged'
  | 'providerCalls'
  | 'fallbacks'
  | 'providerCost'
  | 'unpricedCalls'
  | 'webhookAttempts'
  | 'salesAlerts'
  | 'logLinesDropped'
>;
type ScrapedGauges = Pick<Metrics, 'holdsOpen' | 'heldUnits' | 'videoJobs' | 'videoQueueAge' | 'dbPool' | 'databaseUp'>;

/** What this instance records as it happens: requests, units charged, engine calls and their cost, webhook attempts. */
function recordedMetrics(client: PromClient, registry: Registry): RecordedMetrics {
  return {
    requests: new client.Histogram({
      name: 'wgs_http_request_duration_seconds',
      help: '/v1 requests by route, method, status and error code, with their duration',
      labelNames: ['route', 'method', 'status', 'code'] as const,
      buckets: DURATION_BUCKETS,
      registers: [registry],
    }),
    unitsCharged: new client.Counter({
      name: 'wgs_units_charged_total',
      help: 'Units charged by package and operation by the synchronous generations (a video job is charged later, by its worker, and not counted here)',
      labelNames: ['package', 'operation'] as const,
      registers: [registry],
    }),
    providerCalls: new client.Histogram({
      name: 'wgs_provider_call_duration_seconds',
      help: 'Engine calls by provider, model and outcome (ok, error, cancelled: stopped by their caller), with their latency',
      labelNames: ['provider', 'model', 'outcome'] as const,
      buckets: DURATION_BUCKETS,
      registers: [registry],
    }),
    fallbacks: new client.Counter({
      name: 'wgs_provider_fallbacks_total',
      help: 'Fallbacks taken from one engine to the next, by operation',
      labelNames: ['operation', 'from', 'to'] as const,
      registers: [registry],
    }),
    providerCost: new client.Counter({
      name: 'wgs_provider_cost_total',
      help: 'Provider cost of engine calls in CURRENCY, as recorded on their usage events',
      labelNames: ['provider', 'model'] as const,
      registers: [registry],
    }),
    unpricedCalls: new client.Counter({
      name: 'wgs_provider_unpriced_calls_total',
      help: 'Engine calls whose model has no known price (no cost recorded)',
      labelNames: ['provider', 'model'] as const,
      registers: [registry],
    }),
    webhookAttempts: new client.Counter({
      name: 'wgs_webhook_attempts_total',
      help: 'Job webhook delivery attempts by outcome (delivered, retry, failed: out of attempts or 410 Gone)',
      labelNames: ['outcome'] as const,
      registers: [registry],
    }),
    salesAlerts: new client.Counter({
      name: 'wgs_sales_alerts_total',
      help: 'Payments the operator must look at, by reason (fulfilment_refused: Stripe reported another amount or currency than the purchase)',
      labelNames: ['reason'] as const,
      registers: [registry],
    }),
    logLinesDropped: new client.Counter({
      name: 'wgs_log_lines_dropped_total',
      help: "Request log lines dropped because stdout's reader was more than 16 MB behind (request-log.ts)",
      registers: [registry],
    }),
  };
}

/** The paid path's statements (billing/batched-writes.ts), by batch function: their batch sizes and each call's wait. */
function statementHistograms(client: PromClient, registry: Registry): Pick<Metrics, 'batchSizes' | 'writeSeconds'> {
  const histogram = (name: string, help: string, buckets: number[]) =>
    new client.Histogram({ name, help, labelNames: ['statement'] as const, buckets, registers: [registry] });
  return {
    batchSizes: histogram(
      'wgs_db_batch_size',
      'Calls written together by one statement of the paid path (billing/batched-writes.ts), by batch function',
      BATCH_BUCKETS,
    ),
    writeSeconds: histogram(
      'wgs_db_write_seconds',
      "Seconds from a paid call's write to its answer: the wait for the statement of its kind in flight, then its own (batched or alone), by batch function",
      WRITE_BUCKETS,
    ),
  };
}

/** Gauges set when scraped: the database-wide holds and video jobs, and this instance's pools. */
function scrapedGauges(client: PromClient, registry: Registry): ScrapedGauges {
  return {
    holdsOpen: new client.Gauge({ name: 'wgs_holds_open', help: 'Unit holds open (database-wide)', registers: [registry] }),
    heldUnits: new client.Gauge({ name: 'wgs_held_units', help: 'Units held by open holds (database-wide)', registers: [registry] }),
    videoJobs: new client.Gauge({
      name: 'wgs_video_jobs',
      help: 'Video jobs not finished, by state (database-wide)',
      labelNames: ['state'] as const,
      registers: [registry],
    }),
    videoQueueAge: new client.Gauge({
      name: 'wgs_video_job_queue_age_seconds',
      help: 'Age of the oldest submitted video job no worker has started (database-wide; 0 when none waits)',
      registers: [registry],
    }),
    dbPool: new client.Gauge({
      name: 'wgs_db_pool_connections',
      help: "Connections of this instance's PostgreSQL pools by state (total, idle, waiting = queries queued for one)",
      labelNames: ['pool', 'state'] as const,
      registers: [registry],
    }),
    databaseUp: new client.Gauge({
      name: 'wgs_database_up',
      help: "1 when PostgreSQL answered this scrape's database-wide gauges within READINESS_TIMEOUT_MS; 0 when not (those gauges then keep their last values)",
      registers: [registry],
    }),
  };
}

/** Creates the registry once (prom-client is loaded only here, and only when metrics are on). */
export function enableMetrics(): Promise<Metrics> {
  enabling ??= (async () => {
    const client = await import('prom-client');
    const registry = new client.Registry();
    client.collectDefaultMetrics({ register: registry }); // process, heap, GC, event-loop lag
    current = {
      registry,
      ...recordedMetrics(client, registry),
      ...statementHistograms(client, registry),
      ...scrapedGauges(client, registry),
    };
    return current;
  })();
  return enabling;
}

/** The request histogram of one route, its label sets looked up once each (not hashed per request). */
export interface RequestMeter {
  observe(method: string, status: number, code: string, seconds: number): void;
}

export type Series = { observe(seconds: number): void };

export function requestMeter(route: string): RequestMeter {
  let registry: Metrics | undefined;
  let series = new Map<string, Series>();
  return {
    observe(method, status, code, seconds) {
      const metrics = current;
      if (!metrics) return;
      if (registry !== metrics) [registry, series] = [metrics, new Map()]; // metrics enabled (again) since
      const id = `${method} ${status} ${code}`;
      let child = series.get(id);
      if (!child) series.set(id, (child = metrics.requests.labels(route, method, String(status), code)));
      child.observe(seconds);
    },
  };
}

export function countUnitsCharged(packageSlug: string, operation: string, units: number): void {
  current?.unitsCharged.labels(packageSlug, operation).inc(units);
}

export function observeProviderCall(engineName: string, outcome: 'ok' | 'error' | 'cancelled', seconds: number): void {
  const metrics = current;
  if (!metrics) return;
  const separator = engineName.indexOf(':');
  const provider = separator < 0 ? engineName : engineName.slice(0, separator);
  const model = separator < 0 ? engineName : engineName.slice(separator + 1);
  metrics.providerCalls.labels(provider, model, outcome).observe(seconds);
}

/** The priced cost of one engine call (or that it was unpriced), by provider and model. */
export function countProviderCost(engineName: string, cost: number | null, unpriced: boolean): void {
  const metrics = current;
  if (!metrics) return;
  const separator = engineName.indexOf(':');
  const [provider, model] = separator < 0 ? [engineName, engineName] : [engineName.slice(0, separator), engineName.slice(separator + 1)];
  if (unpriced) metrics.unpricedCalls.labels(provider, model).inc();
  else if (cost !== null) metrics.providerCost.labels(provider, model).inc(cost);
}

/**
 * For engine fallbacks: call once each time a request leaves engine `from` for engine `to`
 * (engine names as in the packages file, e.g. `openai:gpt-4o-mini` -> `local`).
 */
export function countFallback(operation: string, from: string, to: string): void {
  current?.fallbacks.labels(operation, from, to).inc();
}

/** A payment the operator must look at (docs/selling.md). */
export function countSalesAlert(reason: string): void {
  current?.salesAlerts.labels(reason).inc();
}

/** One attempt to deliver a job webhook: `retry` and `failed` are the failures. */
export function countWebhookAttempt(outcome: 'delivered' | 'retry' | 'failed'): void {
  current?.webhookAttempts.labels(outcome).inc();
}

/** Whether metrics are recorded: a caller skips what it would measure only for them. */
export function metricsOn(): boolean {
  return current !== undefined;
}

/** How long the calls of one statement of the paid path waited for its answer, its label set looked up once. */
export function writeMeter(statement: string): Series {
  let registry: Metrics | undefined;
  let series: Series | undefined;
  return {
    observe(seconds) {
      const metrics = current;
      if (!metrics) return;
      if (registry !== metrics) [registry, series] = [metrics, metrics.writeSeconds.labels(statement)];
      series!.observe(seconds);
    },
  };
}

/** How many calls one statement of the paid path wrote together. */
export function observeBatchSize(statement: string, size: number): void {
  current?.batchSizes.labels(statement).observe(size);
}
