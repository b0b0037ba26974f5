import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import autocannon from 'autocannon';
import { loadTest, type LoadTestOptions, type LoadTestResult } from 'loadtest';
import { busyShare, cpuByPid, cpuSpent, machineCpu, mainThreadCpu, memoryOf, postgresPids } from './proc-stats';
import { CONNECTIONS, DURATION_S, log, runId, WARMUP_S } from './settings';

// The two load generators and what one scenario's measurement records: closed loop (autocannon,
// fixed connections) or open loop (loadtest, one request every 1/rate s), after a warm-up of the
// same load, with the server's and PostgreSQL's CPU and the server's RSS sampled around it.

/** One row of the table. */
export interface Measured {
  name: string;
  rps: number;
  p50: number;
  p99: number;
  rssMb?: number;
  statuses: Record<string, number>;
  errors: number;
  /** CPU ms per request: the server process, and PostgreSQL (all its processes). */
  cpuServer?: number;
  /** Of cpuServer, the main (JavaScript) thread's share. */
  cpuServerMain?: number;
  cpuPg?: number;
  /** Bytes the server promoted to V8's old generation per request (rows that count it). */
  promotedPerRequest?: number;
  /** The share of the machine's CPU busy meanwhile (every process: the load generator's, PostgreSQL's, the servers'). */
  machineBusy?: number;
  /** What every answer of the row must be: '2xx' (any success) or one status. */
  expected?: string;
  note?: string;
}

/**
 * The paid answers a key got and the requests sent to it, warm-ups included: its books must have
 * captured at least one unit per paid answer and at most one per request sent (scripts/bench/books.ts).
 */
export interface AnswerTally {
  paid: number;
  sent: number;
}

export interface Load {
  url: string;
  method?: 'GET' | 'POST';
  headers?: Record<string, string>;
  body?: string;
  /** A fresh Idempotency-Key per request. */
  freshKey?: boolean;
  /** A different unknown API key per request (the 401 rows: one key would be answered from the product's cache of missing keys). */
  freshUnknownKey?: boolean;
  connections?: number;
  /** Open loop at this many requests per second; closed loop without. */
  overallRate?: number;
  duration?: number;
  /** Count promotions while measuring, through the server's promotion counter writing here. */
  promotionFile?: string;
  /** Adds this load's paid answers and requests sent, warm-ups included. */
  tally?: AnswerTally;
}

interface Run {
  rps: number;
  p50: number;
  p99: number;
  total: number;
  /** Requests sent, answered or not (those the load stopped waiting for included). */
  sent: number;
  statuses: Record<string, number>;
  errors: number;
}

let keyCounter = 0;
export const freshIdempotencyKey = () => `bench-${runId}-${++keyCounter}`;

/** An API key of the product's form never issued: wgs_live_ and 40 base62 characters. */
const unknownApiKey = () =>
  `wgs_live_${randomBytes(30)
    .toString('base64')
    .replace(/[^A-Za-z0-9]/g, 'x')
    .slice(0, 40)}`;

/** A request's headers with what each request of `load` gets anew. */
function freshHeaders(load: Load, headers: Record<string, string> | undefined): Record<string, string> {
  return {
    ...headers,
    ...(load.freshKey ? { 'idempotency-key': freshIdempotencyKey() } : {}),
    ...(load.freshUnknownKey ? { authorization: `Bearer ${unknownApiKey()}` } : {}),
  };
}

async function closedLoop(load: Load): Promise<Run> {
  const result = await autocannon({
    url: load.url,
    method: load.method ?? 'GET',
    headers: { ...load.headers },
    body: load.body,
    connections: load.connections ?? CONNECTIONS,
    duration: load.duration ?? DURATION_S,
    ...(load.freshKey || load.freshUnknownKey
      ? { requests: [{ setupRequest: (request: autocannon.Request) => ({ ...request, headers: freshHeaders(load, request.headers) }) }] }
      : {}),
  });
  const statuses: Record<string, number> = {};
  for (const [code, stat] of Object.entries(result.statusCodeStats ?? {})) statuses[code] = stat.count;
  return {
    rps: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    total: result.requests.total,
    sent: result.requests.sent,
    statuses,
    errors: result.errors, // its timeouts included
  };
}

/** loadtest leaves a percentile `false` when no request reached it (e.g. none answered). */
function percentile(result: LoadTestResult, which: 50 | 99): number {
  const value: unknown = result.percentiles[which];
  return typeof value === 'number' ? value : Number.NaN;
}

/**
 * Open loop: one request every 1/rate s, whatever the answers (loadtest's requestsPerSecond),
 * which is what "offered load" means. autocannon's overallRate is not that: each connection
 * sends its share of the second back to back as the second starts, then waits, so it measures
 * a burst of `rate` requests once a second.
 */
async function openLoop(load: Load & { overallRate: number }): Promise<Run> {
  const run = loadTest as unknown as (options: LoadTestOptions) => Promise<LoadTestResult>;
  const body = load.body ?? '';
  let sent = 0;
  const result = await run({
    url: load.url,
    method: load.method ?? 'GET',
    headers: load.headers ?? {},
    body: load.method === 'POST' ? body : undefined,
    contentType: load.headers?.['content-type'],
    requestsPerSecond: load.overallRate,
    maxSeconds: load.duration ?? DURATION_S,
    agentKeepAlive: true,
    quiet: true,
    requestGenerator: (
      _options: unknown,
      params: { headers: Record<string, string | number> },
      request: (p: unknown, cb: unknown) => unknown,
      callback: unknown,
    ) => {
      Object.assign(params.headers, freshHeaders(load, {}));
      if (load.method === 'POST') params.headers['Content-Length'] = Buffer.byteLength(body);
      sent++;
      return request(params, callback);
    },
  });
  const statuses: Record<string, number> = { ...result.errorCodes };
  const failed = Object.values(result.errorCodes).reduce((a, b) => a + b, 0);
  if (result.totalRequests > failed) statuses['2xx'] = result.totalRequests - failed;
  return {
    rps: result.totalRequests / (load.duration ?? DURATION_S),
    p50: percentile(result, 50),
    p99: percentile(result, 99),
    total: result.totalRequests,
    sent,
    statuses,
    errors: result.totalErrors - failed,
  };
}

/** Whether a status (autocannon's `200`, loadtest's `2xx` or `401`) is the `expected` one (Measured). */
const answeredAs = (status: string, expected: string) => (expected === '2xx' ? status.startsWith('2') : status === expected);

/** A row with an answer other than its scenario's (a 5xx on a paid path, a 429 among the 401s) or a request that failed. */
export const answeredOtherwise = (row: Measured) =>
  row.expected !== undefined && (row.errors > 0 || Object.keys(row.statuses).some((status) => !answeredAs(status, row.expected!)));

async function drive(load: Load): Promise<Run> {
  const run = await (load.overallRate ? openLoop({ ...load, overallRate: load.overallRate }) : closedLoop(load));
  if (load.tally) {
    for (const [status, count] of Object.entries(run.statuses)) if (answeredAs(status, '2xx')) load.tally.paid += count;
    load.tally.sent += run.sent;
  }
  return run;
}

/** Samples a server's peak RSS (every 200 ms) and, with PostgreSQL's, its CPU until `stop`. */
function sample(pid: number | undefined, postmasterPid: number) {
  let rssMb = 0;
  const sampler = pid
    ? setInterval(() => {
        try {
          rssMb = Math.max(rssMb, memoryOf(pid).rss);
        } catch {
          // gone
        }
      }, 200)
    : undefined;
  const serverBefore = cpuByPid(pid ? [pid] : []);
  const mainBefore = mainThreadCpu(pid);
  const pgBefore = cpuByPid(postgresPids(postmasterPid));
  const machineBefore = machineCpu();
  return () => {
    const server = cpuSpent(serverBefore, cpuByPid(pid ? [pid] : []));
    const main = mainThreadCpu(pid) - mainBefore;
    const database = cpuSpent(pgBefore, cpuByPid(postgresPids(postmasterPid)));
    const machineBusy = busyShare(machineBefore, machineCpu());
    if (sampler) clearInterval(sampler);
    return { rssMb, server, main, database, machineBusy };
  };
}

/** Starts the server's promotion counter (scripts/bench/promotion-counter.mjs); the returned call stops it and reads its bytes. */
function countPromotion(pid: number, file: string): () => Promise<number> {
  rmSync(file, { force: true });
  process.kill(pid, 'SIGUSR2');
  return async () => {
    process.kill(pid, 'SIGUSR2');
    for (let waited = 0; !existsSync(file); waited += 50) {
      if (waited > 10_000) throw new Error(`the product wrote no promotion count to ${file}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    return (JSON.parse(readFileSync(file, 'utf8')) as { promotedBytes: number }).promotedBytes;
  };
}

/** A busy share as a whole percentage. */
export const busyPercent = (share: number) => `${Math.round(share * 100)}%`;

/** One measured window of a load: its totals, so that windows of the same load can be added up. */
export interface Window {
  seconds: number;
  run: Run;
  spent: ReturnType<ReturnType<typeof sample>>;
  promoted?: number;
}

/** Runs `load` for WARMUP_S without measuring it. */
export async function warmUp(name: string, load: Load): Promise<void> {
  log(`${name}: warm-up ${WARMUP_S}s`);
  await drive({ ...load, duration: WARMUP_S });
}

/** Measures `load` for `seconds` (DURATION_S by default), `pid` being the server's. */
export async function measureWindow(name: string, load: Load, pid: number | undefined, postmasterPid: number, label = ''): Promise<Window> {
  const seconds = load.duration ?? DURATION_S;
  log(`${name}: measuring ${seconds}s${label}`);
  const stopCounting = pid && load.promotionFile ? countPromotion(pid, load.promotionFile) : undefined;
  const stop = sample(pid, postmasterPid);
  const run = await drive({ ...load, duration: seconds });
  const spent = stop();
  const promoted = await stopCounting?.();
  const perRequest = (ms: number) => (run.total ? (ms / run.total).toFixed(2) : '-');
  log(
    `${name}: ${run.rps.toFixed(0)} req/s, CPU ms per request ${perRequest(spent.server)} + ${perRequest(spent.database)}, machine ${busyPercent(spent.machineBusy)} busy${label}`,
  );
  return { seconds, run, spent, promoted };
}

/**
 * One row from the windows of one load: requests, CPU, statuses and promoted bytes added up, the
 * rate over their total time, the peak RSS of any, and p50 and p99 as the windows' means weighted
 * by their requests (the load generators report percentiles, not their histograms).
 */
export function rowOf(name: string, windows: Window[], pid: number | undefined): Measured {
  const total = windows.reduce((sum, w) => sum + w.run.total, 0);
  const add = (of: (w: Window) => number) => windows.reduce((sum, w) => sum + of(w), 0);
  const weighted = (of: (w: Window) => number) => (total ? add((w) => of(w) * w.run.total) / total : of(windows[0]!));
  const statuses: Record<string, number> = {};
  for (const w of windows) for (const [code, count] of Object.entries(w.run.statuses)) statuses[code] = (statuses[code] ?? 0) + count;
  const promoted = windows.some((w) => w.promoted !== undefined) ? add((w) => w.promoted ?? 0) : undefined;
  return {
    name,
    rps: add((w) => w.run.rps * w.seconds) / add((w) => w.seconds),
    p50: weighted((w) => w.run.p50),
    p99: weighted((w) => w.run.p99),
    rssMb: pid ? Math.max(...windows.map((w) => w.spent.rssMb)) : undefined,
    statuses,
    errors: add((w) => w.run.errors),
    cpuServer: pid && total ? add((w) => w.spent.server) / total : undefined,
    cpuServerMain: pid && total ? add((w) => w.spent.main) / total : undefined,
    cpuPg: total ? add((w) => w.spent.database) / total : undefined,
    promotedPerRequest: promoted !== undefined && total ? promoted / total : undefined,
    machineBusy: add((w) => w.spent.machineBusy * w.seconds) / add((w) => w.seconds),
  };
}

/**
 * Warms up with `load` for WARMUP_S, then measures it: one row, `pid` being the server's.
 * `afterWarmUp` runs between the two (the runner brings the database's statistics up to date there).
 */
export async function measure(
  name: string,
  load: Load,
  pid: number | undefined,
  postmasterPid: number,
  afterWarmUp?: () => Promise<unknown>,
): Promise<Measured> {
  await warmUp(name, load);
  await afterWarmUp?.();
  return rowOf(name, [await measureWindow(name, load, pid, postmasterPid)], pid);
}
