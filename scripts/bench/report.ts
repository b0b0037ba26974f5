import { cpus, loadavg, totalmem } from 'node:os';
import { booksBalance, type Books } from './books';
import { answeredOtherwise, busyPercent, type Measured } from './load';
import { CONNECTIONS, DURATION_S, NODE_OPTIONS, OBSERVABILITY_OFF, ROUNDS, WARMUP_S, WITHOUT } from './settings';

// The printed result of a run: the machine and conditions, the table, the comparisons, the books,
// the targets and, last, one line of a fixed form for comparing runs:
//   bench: text.generate T req/s, Y x bare floor, provider path Q req/s, +C ms cpu, added p99 D ms, rss M MB, P x peer

export interface Report {
  rows: Map<string, Measured>;
  rowOrder: string[];
  fixedRate: number;
  lowerRates: number[];
  startLoad: string;
  idleRss: number;
  /** VmHWM of the product at the end, in MB. */
  hwm: number;
  books: Books[];
  /** When the run started (Date.now()). */
  started: number;
}

const fmt = (n: number, digits = 0) => n.toFixed(digits);
const busyOf = (r: Measured) => (r.machineBusy === undefined ? '-' : busyPercent(r.machineBusy));
/** A difference with its sign: +0.31, -0.05. */
const signed = (n: number, digits = 0) => `${n >= 0 ? '+' : ''}${n.toFixed(digits)}`;
const out = (s = '') => process.stdout.write(`${s}\n`);
const loadAverage = () =>
  loadavg()
    .map((n) => n.toFixed(2))
    .join(' ');
export const startLoadAverage = loadAverage;

function printTable(rows: Measured[]): void {
  const statusText = (s: Record<string, number>) =>
    Object.entries(s)
      .map(([c, n]) => `${c}:${n}`)
      .join(' ');
  const header = ['scenario', 'req/s', 'p50 ms', 'p99 ms', 'max RSS MB', 'CPU ms/req srv+pg', 'statuses', 'notes'];
  const table = rows.map((r) => [
    r.name,
    fmt(r.rps),
    Number.isNaN(r.p50) ? '-' : fmt(r.p50),
    Number.isNaN(r.p99) ? '-' : fmt(r.p99),
    r.rssMb === undefined ? '-' : fmt(r.rssMb),
    `${fmt(r.cpuServer ?? 0, 2)} + ${fmt(r.cpuPg ?? 0, 2)}`,
    statusText(r.statuses) + (r.errors ? ` errors:${r.errors}` : ''),
    [r.note, r.promotedPerRequest === undefined ? undefined : `promoted ${fmt(r.promotedPerRequest / 1024, 1)} KB/req`]
      .filter(Boolean)
      .join('; '),
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...table.map((row) => row[i]!.length)));
  const line = (cells: string[]) =>
    cells
      .map((c, i) => (i === 0 || i >= 6 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!)))
      .join('  ')
      .trimEnd();
  out(line(header));
  out(line(widths.map((w) => '-'.repeat(w))));
  for (const row of table) out(line(row));
}

function printConditions(report: Report): void {
  const rate = report.fixedRate;
  out(
    `machine: ${cpus().length} x ${cpus()[0]?.model ?? 'cpu'}, ${fmt(totalmem() / 2 ** 30, 1)} GiB, node ${process.version}; ${new Date().toISOString()}`,
  );
  out(`load average (1/5/15 min) at the end: ${loadAverage()}; at the start: ${report.startLoad}`);
  if (NODE_OPTIONS) out(`experiment: product started with NODE_OPTIONS=${NODE_OPTIONS}`);
  if (WITHOUT.length) out(`experiment: product started without ${WITHOUT.join(', ')} of the start script (BENCH_WITHOUT)`);
  out(
    `observability: ${OBSERVABILITY_OFF ? 'request log and metrics off (BENCH_OBSERVABILITY=off)' : 'request log (json) and Prometheus metrics on, as in production'}; refused-request counts on`,
  );
  out(
    `load: autocannon, ${CONNECTIONS} connections, ${WARMUP_S}s warm-up + ${DURATION_S}s per scenario (the database ANALYZEd after each warm-up; the paid paths, the bare floor and the peer in ${ROUNDS} alternating windows of ${fmt(DURATION_S / ROUNDS, 1)}s, in order then reversed); fixed-rate runs ${rate} req/s open loop (half the slower paid path's closed loop: local ${fmt(report.rows.get('product')!.rps)}, provider ${fmt(report.rows.get('viaProvider')!.rps)} req/s; loadtest: one request every ${fmt(1000 / rate, 1)} ms, whatever the answers)`,
  );
}

/** The comparisons between rows of the run. */
function printComparisons(report: Report): void {
  const row = (id: string) => report.rows.get(id)!;
  const [product, trivial, viaProvider, r422] = [row('product'), row('trivial'), row('viaProvider'), row('r422')];
  out(
    `product / trivial route: ${fmt(product.rps / trivial.rps, 2)} x    product / bare floor: ${fmt(product.rps / row('bare').rps, 2)} x`,
  );
  out(
    `CPU ms per paid request: product ${fmt(product.cpuServer ?? 0, 2)}, of which the pipeline itself ~${fmt(row('handler').cpuServer ?? 0, 2)} (handler in-process) and Next + HTTP the rest; trivial route ${fmt(trivial.cpuServer ?? 0, 2)}`,
  );
  const threads = (r: Measured) =>
    `main thread ${fmt(r.cpuServerMain ?? 0, 2)} + other threads ${fmt((r.cpuServer ?? 0) - (r.cpuServerMain ?? 0), 2)}`;
  out(
    `server CPU ms per request by thread (other threads: V8's garbage collector helpers, libuv): product ${threads(product)}; trivial route ${threads(trivial)}; 422 ${threads(r422)}`,
  );
  const { addedCpu, addedP99 } = gateCost(report);
  out(
    `provider path: ${fmt(viaProvider.rps)} req/s; server CPU ms per request ${fmt(viaProvider.cpuServer ?? 0, 2)} against the local path's ${fmt(product.cpuServer ?? 0, 2)} (${signed(addedCpu, 2)}); p99 at ${report.fixedRate} req/s ${fmt(row('fixedProvider').p99)} ms against the instant provider's own ${fmt(row('fixedDirect').p99)} ms (${signed(addedP99)}), the machine ${busyOf(row('fixedProvider'))} busy meanwhile (${busyOf(viaProvider)} in its closed loop)`,
  );
  for (const rate of report.lowerRates) {
    const [local, provider] = [row(`local@${rate}`), row(`provider@${rate}`)];
    out(
      `at ${rate} req/s offered: provider path ${fmt(provider.rps)} req/s, p50 ${fmt(provider.p50)} ms, p99 ${fmt(provider.p99)} ms, server CPU ${fmt(provider.cpuServer ?? 0, 2)} ms; local path ${fmt(local.rps)} req/s, p50 ${fmt(local.p50)} ms, p99 ${fmt(local.p99)} ms, ${fmt(local.cpuServer ?? 0, 2)} ms (${signed((provider.cpuServer ?? 0) - (local.cpuServer ?? 0), 2)})`,
    );
  }
  const peer = row('peer');
  out(
    `peer (Portkey's gateway, the same completion to the same instant provider): ${fmt(peer.rps)} req/s, server CPU ${fmt(peer.cpuServer ?? 0, 2)} ms per request; the provider path ${fmt(viaProvider.rps / peer.rps, 2)} x its throughput at ${fmt((viaProvider.cpuServer ?? 0) / (peer.cpuServer || Number.NaN), 2)} x its CPU per request`,
  );
  out(
    `bytes promoted to the old generation per paid request (local path): ${fmt((product.promotedPerRequest ?? Number.NaN) / 1024, 1)} KB`,
  );
  const versus = (on: Measured, off: Measured) =>
    `${fmt(on.rps)} vs ${fmt(off.rps)} req/s, ${fmt(on.cpuServer ?? 0, 2)} vs ${fmt(off.cpuServer ?? 0, 2)} ms server CPU`;
  out(
    `request log + metrics on vs off (same run, second instance): paid path ${versus(product, row('quietPaid'))}; 401 ${versus(row('r401'), row('quiet401'))}; 422 ${versus(r422, row('quiet422'))}`,
  );
}

/** C (the provider path's server CPU per request minus the local path's), D (its p99 at the fixed rate minus the instant provider's own) and M (the larger peak RSS of the local and provider loads). */
function gateCost(report: Report) {
  const row = (id: string) => report.rows.get(id)!;
  return {
    addedCpu: (row('viaProvider').cpuServer ?? 0) - (row('product').cpuServer ?? 0),
    addedP99: row('fixedProvider').p99 - row('fixedDirect').p99,
    rssMax: Math.max(...['product', 'fixedProduct', 'viaProvider', 'fixedProvider'].map((id) => row(id).rssMb ?? 0)),
  };
}

/** Prints the report; false when a check of the product's correctness (books, answers, rejections) failed. */
export function printReport(report: Report): boolean {
  const row = (id: string) => report.rows.get(id)!;
  const { addedCpu, addedP99, rssMax } = gateCost(report);
  printConditions(report);
  out('');
  printTable(report.rowOrder.map(row));
  out('');
  printComparisons(report);
  out(
    `product RSS: ${fmt(report.idleRss)} MB idle after start, max ${fmt(rssMax)} MB under the local and provider loads, ${fmt(row('media').rssMb ?? 0)} MB under the media load, VmHWM ${fmt(report.hwm)} MB (PostgreSQL's own processes not included)`,
  );
  for (const b of report.books) {
    const answered = b.answered ? `, paid answers ${b.answered.paid} of ${b.answered.sent} requests sent` : '';
    out(
      `books ${b.label}: remaining ${b.remaining}, captured units ${b.captured}, succeeded usage events ${b.usage}, open holds ${b.held}${answered}`,
    );
  }
  const misanswered = report.rowOrder.map(row).filter(answeredOtherwise);
  out(
    `answers: ${misanswered.length ? misanswered.map((r) => `${r.name} answered other than ${r.expected}`).join('; ') : 'every row answered as it should'}`,
  );
  const noWrite = row('r401').note === 'no db write' && row('r422').note === 'no db write';
  const balanced = booksBalance(report.books);
  const [product, viaProvider, peer] = [row('product'), row('viaProvider'), row('peer')];
  const targets = [
    ["provider path >= 0.5 x the peer's throughput", viaProvider.rps >= 0.5 * peer.rps],
    ['local path >= 0.8 x bare floor', product.rps >= 0.8 * row('bare').rps],
    ['promoted <= 5 KB per paid request', (product.promotedPerRequest ?? Infinity) <= 5 * 1024],
    ['provider path CPU <= local path + 0.5 ms per request', addedCpu <= 0.5],
    [`gate's added p99 <= 25 ms at ${report.fixedRate} req/s`, addedP99 <= 25],
    ['rejections without a database write', noWrite],
    ['RSS <= 300 MB', rssMax <= 300],
    ['books balance', balanced],
    ['every answer as expected', misanswered.length === 0],
  ] as const;
  out(`targets: ${targets.map(([what, ok]) => `${what}: ${ok ? 'met' : 'NOT met'}`).join('; ')}`);
  out(`(total bench time ${fmt((Date.now() - report.started) / 1000)} s)`);
  out(
    `bench: text.generate ${fmt(product.rps)} req/s, ${fmt(product.rps / row('bare').rps, 2)} x bare floor, provider path ${fmt(viaProvider.rps)} req/s, ${signed(addedCpu, 2)} ms cpu, added p99 ${fmt(addedP99)} ms, rss ${fmt(rssMax)} MB, ${fmt(viaProvider.rps / peer.rps, 2)} x peer`,
  );
  return noWrite && balanced && misanswered.length === 0;
}
