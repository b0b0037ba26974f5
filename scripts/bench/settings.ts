import { resolve } from 'node:path';
import { parseWithout } from './start-settings';

// What a run of `npm run bench` is told by its environment. Every BENCH_* variable is read here
// and nowhere else; the product itself never reads them.

export const ROOT = resolve(import.meta.dirname, '..', '..');
/** The build the bench serves (made when missing or older than the code, as `npm start` does). */
export const DIST_DIR = '.next-bench';
export const WARMUP_S = Number(process.env.BENCH_WARMUP_S ?? 4);
export const DURATION_S = Number(process.env.BENCH_DURATION_S ?? 10);
/**
 * The rows compared with each other (the paid paths, the bare floor, the peer) are measured in this
 * many windows of DURATION_S / ROUNDS, alternating: in order, then in reverse (scenarios.ts, `alternate`).
 */
export const ROUNDS = 2;
/**
 * Connections of every closed-loop scenario (and the in-process handler's concurrency); BENCH_CONNECTIONS=10
 * compares the paths where fewer calls are in flight at once (fewer to batch together).
 */
export const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50);
/**
 * More lower offered rates (BENCH_LOWER_RATES=100,150,200; a tenth of R is always run): the local
 * and the provider path open loop at each (only those below the run's fixed rate), to tell the
 * cost of a request from the backlog of an overloaded server.
 */
export const LOWER_RATES = (process.env.BENCH_LOWER_RATES ?? '')
  .split(',')
  .map(Number)
  .filter((rate) => rate > 0);
/** BENCH_OBSERVABILITY=off: the product without its request log and metrics (the refused-request counts have no switch). */
export const OBSERVABILITY_OFF = process.env.BENCH_OBSERVABILITY === 'off';
/** Experiments only (e.g. a heap cap); the default run measures the product as shipped. */
export const NODE_OPTIONS = process.env.BENCH_NODE_OPTIONS;
/** V8 flags NODE_OPTIONS refuses (e.g. --trace-gc), put before the start script's own. */
export const NODE_ARGS = (process.env.BENCH_NODE_ARGS ?? '').split(/\s+/).filter(Boolean);
/** A file that keeps what the started processes print (e.g. with BENCH_NODE_ARGS=--trace-gc). */
export const PRODUCT_LOG = process.env.BENCH_PRODUCT_LOG;

/**
 * BENCH_WITHOUT=malloc,heap-cap,pretenuring: the product (both instances) started without these
 * settings of package.json's start script (scripts/bench/start-settings.ts), to measure what each buys.
 */
export const WITHOUT = parseWithout(process.env.BENCH_WITHOUT);

/** Tells this run's Idempotency-Keys from any other's. */
export const runId = Date.now().toString(36);

/** The product's METRICS_TOKEN in this run: what reading its /metrics takes. */
export const METRICS_TOKEN = `bench-metrics-token-${runId}`;

export const log = (line: string) => process.stderr.write(`[bench] ${line}\n`);
