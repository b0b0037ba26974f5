import type { KeyName } from './stack';

// The scenarios of `npm run bench`, in the order they run: where the load goes, with what body
// and key, at what load, and what is checked besides the figures. scripts/bench/runner.ts runs
// them; scripts/bench/report.ts prints their rows in ROW_ORDER.

/**
 * app: the product; quiet: a second instance of it on the same database with the request log
 * and metrics off (started for its scenarios, stopped after); floor: the bare floor
 * (node:http + pg, the same essential database work); provider: the instant provider; peer:
 * Portkey's open-source gateway proxying chat completions to it; bench: the bench's own process
 * (the route handler called in-process).
 */
export type Instance = 'app' | 'quiet' | 'floor' | 'provider' | 'peer' | 'bench';

/**
 * closed: autocannon, CONNECTIONS connections back to back. open: loadtest, one request every
 * 1/rate s whatever the answers; rate 'fixed' is the run's fixed rate (see fixedRate).
 * in-process: the route handler called in the bench process with CONNECTIONS concurrent calls.
 */
export type LoadShape = { kind: 'closed' } | { kind: 'open'; rate: 'fixed' | number } | { kind: 'in-process' };

export interface Scenario {
  /** How the summary lines and ROW_ORDER name it. */
  id: string;
  /** The row's name; an open load's gets ` @ RATE/s` appended. */
  name: string;
  instance: Instance;
  route: string;
  /**
   * summary: the paid text.generate body; empty-input: one the schema refuses (422); completion: a
   * chat completion to the provider; speech: an audio.speech body whose WAV is about 1 MB.
   */
  body: 'none' | 'summary' | 'empty-input' | 'completion' | 'speech';
  /** The bearer key: a bench key, or `unknown` (well-formed, never issued: 401). */
  key?: KeyName | 'unknown';
  /** fresh: a new Idempotency-Key per request; stored: one key, stored by a first request and replayed by every other. */
  idempotency?: 'fresh' | 'stored';
  load: LoadShape;
  /** Connections of a closed load (CONNECTIONS when unset). */
  connections?: number;
  /**
   * settle: wait a second (requests in flight finish); drain: until no request holds units;
   * checkpoint: settle, then a CHECKPOINT (the WAL written so far is recycled, runner.ts).
   */
  before?: 'settle' | 'drain' | 'checkpoint';
  /** no-db-write: nothing a request could write changed between before and after the scenario. */
  assert?: 'no-db-write';
  /** Count the bytes the server promotes to V8's old generation while measuring (per request in the row). */
  promotion?: boolean;
  /**
   * Measured alternating with the `alternate` scenarios next to it: each warmed up in turn, then
   * ROUNDS windows each, in order and in reverse (A B C D D C B A), so a drift of the shared
   * machine's speed during the run falls on the rows compared with each other alike.
   */
  alternate?: boolean;
  note?: string;
}

const TEXT = '/v1/text/generate';
const CLOSED: LoadShape = { kind: 'closed' };
const FIXED: LoadShape = { kind: 'open', rate: 'fixed' };
const paid = { route: TEXT, body: 'summary', idempotency: 'fresh' } as const;

export const SCENARIOS: Scenario[] = [
  { id: 'trivial', name: 'trivial route  GET /healthz', instance: 'app', route: '/healthz', body: 'none', load: CLOSED },
  // The rows the report compares with each other, measured in alternating windows: the local and
  // the provider path, the bare floor (the same statements without the product) and the peer,
  // Portkey's gateway proxying the same completion to the same instant provider (no keys, quota,
  // idempotency or books: what a bare proxy costs on this machine).
  {
    id: 'product',
    name: 'text.generate  (product)',
    instance: 'app',
    ...paid,
    key: 'product',
    load: CLOSED,
    promotion: true,
    alternate: true,
  },
  { id: 'viaProvider', name: 'text.generate  (provider path)', instance: 'app', ...paid, key: 'provider', load: CLOSED, alternate: true },
  { id: 'bare', name: 'bare floor     (node:http+pg)', instance: 'floor', ...paid, key: 'floor', load: CLOSED, alternate: true },
  {
    id: 'peer',
    name: 'peer gateway   (Portkey)',
    instance: 'peer',
    route: '/v1/chat/completions',
    body: 'completion',
    load: CLOSED,
    alternate: true,
  },
  { id: 'direct', name: 'instant provider (direct)', instance: 'provider', route: '/chat/completions', body: 'completion', load: CLOSED },
  // Rejections: a well-formed but unknown key (401) and a schema failure (422).
  { id: 'r401', name: '401 unknown key', instance: 'app', ...paid, key: 'unknown', load: CLOSED, assert: 'no-db-write' },
  { id: 'r422', name: '422 schema', instance: 'app', ...paid, body: 'empty-input', key: 'product', load: CLOSED, assert: 'no-db-write' },
  // What the request log and the metrics cost: the paid path and the two rejections again on the
  // second instance (LOG_FORMAT=off, no metrics; the refused-request counts have no switch).
  { id: 'quietPaid', name: 'text.generate  (log+metrics off)', instance: 'quiet', ...paid, key: 'product', load: CLOSED },
  { id: 'quiet401', name: '401 (log+metrics off)', instance: 'quiet', ...paid, key: 'unknown', load: CLOSED },
  { id: 'quiet422', name: '422 (log+metrics off)', instance: 'quiet', ...paid, body: 'empty-input', key: 'product', load: CLOSED },
  { id: 'replay', name: 'replay (same Idempotency-Key)', instance: 'app', ...paid, key: 'product', idempotency: 'stored', load: CLOSED },
  // The pipeline without Next: the route handler called in this process.
  {
    id: 'handler',
    name: 'handler in-process (no Next)',
    instance: 'bench',
    ...paid,
    key: 'inProcess',
    load: { kind: 'in-process' },
    note: 'CPU of the bench process',
  },
  // Latency at the fixed offered load. The product runs last: should it fall behind the rate,
  // its backlog must not spill into another scenario's figures.
  { id: 'fixedTrivial', name: 'trivial route', instance: 'app', route: '/healthz', body: 'none', load: FIXED, before: 'checkpoint' },
  { id: 'fixedBare', name: 'bare floor', instance: 'floor', ...paid, key: 'floor', load: FIXED },
  { id: 'fixedProduct', name: 'text.generate', instance: 'app', ...paid, key: 'product', load: FIXED, before: 'settle' },
  { id: 'fixedDirect', name: 'instant provider', instance: 'provider', route: '/chat/completions', body: 'completion', load: FIXED },
  { id: 'fixedProvider', name: 'provider path', instance: 'app', ...paid, key: 'provider', load: FIXED, before: 'settle' },
];

/**
 * Memory under media: each answer a WAV of about 1 MB rendered, stored and freed. Run after every
 * other row (the lower rates too), so its buffers are in no other row's RSS; the malloc settings of
 * the start script are for this load.
 */
export const MEDIA_SCENARIOS: Scenario[] = [
  {
    id: 'media',
    name: 'audio.speech   (wav, ~1 MB)',
    instance: 'app',
    route: '/v1/audio/speech',
    body: 'speech',
    key: 'product',
    idempotency: 'fresh',
    load: CLOSED,
    connections: 10,
    before: 'settle',
  },
];

/**
 * What every answer of a scenario's row must be (Measured.expected): the refusal it is made of, else
 * a success; checked on the rows whose figures are the product's or the floor's at a load they set
 * themselves (closed loop, in process). At a fixed rate a slowed machine builds a backlog, whose
 * connection errors and 503s are the load's, not wrong answers (the books still count each call).
 */
export function expectedAnswer(scenario: Scenario): string | undefined {
  if (scenario.load.kind === 'open' || scenario.instance === 'peer' || scenario.instance === 'provider') return undefined;
  if (scenario.key === 'unknown') return '401';
  return scenario.body === 'empty-input' ? '422' : '2xx';
}

/** The table's rows: as they run, but the fixed-rate group with the paid paths first; then the lower rates and the media row. */
export const ROW_ORDER = [
  ...['trivial', 'product', 'viaProvider', 'bare', 'direct', 'peer', 'r401', 'r422', 'quietPaid', 'quiet401', 'quiet422', 'replay'],
  ...['handler', 'fixedProduct', 'fixedTrivial', 'fixedBare', 'fixedProvider', 'fixedDirect'],
];

/**
 * The offered rate of the fixed-rate rows, R: half of what the slower of the two paid paths (local,
 * provider) did closed loop in the same run, a load both carry at that moment at about half their
 * capacity (a fixed figure overloads a slow phase of a shared machine and measures its backlog,
 * not the gate; half the faster path's would load the slower one to 80-90 %). At least 1 req/s.
 */
export function fixedRate(slowerPaidPathRps: number): number {
  return Math.max(1, Math.round(slowerPaidPathRps / 2));
}

/** The lower rate every run measures both paths at: a tenth of R (the latency of a lightly loaded gate). */
export const tenthOf = (rate: number): number => Math.max(1, Math.round(rate / 10));

/** BENCH_LOWER_RATES: the local and the provider path at each rate (after waiting out any backlog). */
export function lowerRateScenarios(rates: number[]): Scenario[] {
  return rates.flatMap((rate): Scenario[] => [
    { id: `local@${rate}`, name: 'text.generate', instance: 'app', ...paid, key: 'product', load: { kind: 'open', rate }, before: 'drain' },
    { id: `provider@${rate}`, name: 'provider path', instance: 'app', ...paid, key: 'provider', load: { kind: 'open', rate } },
  ]);
}
