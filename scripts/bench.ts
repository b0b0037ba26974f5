// `npm run bench`: measures the product against two references on the same machine, in the
// same run, with the same load generator (autocannon, fixed connections, after a warm-up):
//   - product:      POST /v1/text/generate (local engine), a fresh Idempotency-Key per request
//   - trivial:      GET /healthz of the same Next.js process (the cost of Next itself)
//   - bare floor:   scripts/bench/bare-floor.ts, node:http + pg doing the same essential
//                   database work (claim idempotency key, hold units, record usage)
//   - provider path: text.generate through an `openai-compatible` engine pointed at
//                   scripts/bench/instant-provider.ts, and that instant provider called directly
// plus the rejection paths (401, 422: no database write allowed), the idempotent replay, and the
// paid path and rejections once more on a second instance with the request log and metrics off.
// Everything runs on 127.0.0.1, on a temporary data dir with its own embedded PostgreSQL.
// The figures are printed, never asserted. The last line has a fixed form for comparisons.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createWriteStream, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir, totalmem } from 'node:os';
import { join, resolve } from 'node:path';
import autocannon from 'autocannon';
import { loadTest, type LoadTestOptions, type LoadTestResult } from 'loadtest';
import pg from 'pg';
import { freePort } from '../server/free-port';
import { measureHandlerInProcess } from './bench/in-process';
import { ensureBuild } from './lib/ensure-build';
import { startCommand } from './lib/start-command';

const ROOT = resolve(import.meta.dirname, '..');
const DIST_DIR = '.next-bench';
const WARMUP_S = Number(process.env.BENCH_WARMUP_S ?? 4);
const DURATION_S = Number(process.env.BENCH_DURATION_S ?? 10);
const CONNECTIONS = 50;
const FIXED_RATE = 250;
/**
 * Optional lower offered rates (BENCH_LOWER_RATES=100,150,200): the local and the provider path
 * open loop at each, to tell the cost of a request from the backlog of an overloaded server.
 */
const LOWER_RATES = (process.env.BENCH_LOWER_RATES ?? '')
  .split(',')
  .map(Number)
  .filter((rate) => rate > 0 && rate < FIXED_RATE);

const log = (line: string) => process.stderr.write(`[bench] ${line}\n`);
const children: ChildProcess[] = [];
let benchDataDir: string | undefined;

function spawnNode(args: string[], env: NodeJS.ProcessEnv, waitFor: RegExp, timeoutMs: number): Promise<ChildProcess> {
  return new Promise((resolveChild, reject) => {
    const child = spawn(process.execPath, args, { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
    children.push(child);
    let output = '';
    const timer = setTimeout(() => reject(new Error(`${args.join(' ')} not ready in ${timeoutMs} ms:\n${output}`)), timeoutMs);
    // BENCH_PRODUCT_LOG=FILE keeps what the processes print (e.g. with BENCH_NODE_ARGS=--trace-gc).
    if (process.env.BENCH_PRODUCT_LOG) {
      const log = createWriteStream(process.env.BENCH_PRODUCT_LOG, { flags: 'a' });
      child.stdout!.pipe(log);
      child.stderr!.pipe(log);
    }
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      if (waitFor.test(output)) {
        clearTimeout(timer);
        // Ready: what it prints from now on (a log line per request) is drained, not kept and searched.
        child.stdout!.off('data', onData);
        child.stdout!.resume();
        output = '';
        resolveChild(child);
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`${args.join(' ')} exited with ${code}:\n${output}`));
    });
  });
}

function runCli(args: string[], env: NodeJS.ProcessEnv): Record<string, unknown> {
  const result = spawnSync('npm', ['run', '--silent', 'cli', '--', ...args], { cwd: ROOT, env, encoding: 'utf8', timeout: 120_000 });
  if (result.status !== 0) throw new Error(`cli ${args.join(' ')} failed:\n${result.stdout}\n${result.stderr}`);
  return JSON.parse(result.stdout.trim().split('\n').pop()!) as Record<string, unknown>;
}

/** VmRSS and VmHWM of a process, in MB. */
function memoryOf(pid: number): { rss: number; hwm: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+)`, 'm').exec(status)?.[1] ?? 0);
  return { rss: kb('VmRSS') / 1024, hwm: kb('VmHWM') / 1024 };
}

/** CPU time (user + system) in ms from a /proc stat file; throws when the process is gone. */
function cpuMsOf(statPath: string): number {
  const stat = readFileSync(statPath, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10; // utime + stime, USER_HZ = 100
}

/** CPU time (user + system) per process, in ms, from /proc/<pid>/stat. */
function cpuByPid(pids: number[]): Map<number, number> {
  const times = new Map<number, number>();
  for (const pid of pids) {
    try {
      times.set(pid, cpuMsOf(`/proc/${pid}/stat`));
    } catch {
      // gone
    }
  }
  return times;
}

/** CPU ms of a process's main thread alone (the JavaScript thread; V8's GC and libuv helpers excluded). */
function mainThreadCpu(pid: number | undefined): number {
  if (!pid) return 0;
  try {
    return cpuMsOf(`/proc/${pid}/task/${pid}/stat`);
  } catch {
    return 0;
  }
}

/** CPU ms spent between two samples: processes that started meanwhile count from 0; ones that exited are lost. */
function cpuSpent(before: Map<number, number>, after: Map<number, number>): number {
  let total = 0;
  for (const [pid, ms] of after) total += Math.max(0, ms - (before.get(pid) ?? 0));
  return total;
}

/** The postmaster and all its children (backends, background workers). */
let postmasterPid = 0;
function postgresPids(): number[] {
  const pids = [postmasterPid];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      if (Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === postmasterPid) pids.push(Number(entry));
    } catch {
      // gone
    }
  }
  return pids;
}

interface Measured {
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
  note?: string;
}

interface Load {
  url: string;
  method?: 'GET' | 'POST';
  headers?: Record<string, string>;
  body?: string;
  /** A fresh Idempotency-Key per request. */
  freshKey?: boolean;
  connections?: number;
  overallRate?: number;
  duration?: number;
}

let keyCounter = 0;
const runId = Date.now().toString(36);

async function cannon(load: Load): Promise<autocannon.Result> {
  const headers = { ...load.headers };
  const result = await autocannon({
    url: load.url,
    method: load.method ?? 'GET',
    headers,
    body: load.body,
    connections: load.connections ?? CONNECTIONS,
    duration: load.duration ?? DURATION_S,
    ...(load.overallRate ? { overallRate: load.overallRate } : {}),
    ...(load.freshKey
      ? {
          requests: [
            {
              setupRequest: (request: autocannon.Request) => ({
                ...request,
                headers: { ...request.headers, 'idempotency-key': `bench-${runId}-${++keyCounter}` },
              }),
            },
          ],
        }
      : {}),
  });
  return result;
}

interface Run {
  rps: number;
  p50: number;
  p99: number;
  total: number;
  statuses: Record<string, number>;
  errors: number;
}

async function closedLoop(load: Load): Promise<Run> {
  const result = await cannon(load);
  const statuses: Record<string, number> = {};
  for (const [code, stat] of Object.entries(result.statusCodeStats ?? {})) statuses[code] = stat.count;
  return {
    rps: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    total: result.requests.total,
    statuses,
    errors: result.errors + result.timeouts,
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
      if (load.freshKey) params.headers['idempotency-key'] = `bench-${runId}-${++keyCounter}`;
      if (load.method === 'POST') params.headers['Content-Length'] = Buffer.byteLength(body);
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
    statuses,
    errors: result.totalErrors - failed,
  };
}

async function measure(name: string, load: Load, pid?: number, note?: string): Promise<Measured> {
  const drive = (l: Load) => (l.overallRate ? openLoop({ ...l, overallRate: l.overallRate }) : closedLoop(l));
  log(`${name}: warm-up ${WARMUP_S}s`);
  await drive({ ...load, duration: WARMUP_S });
  log(`${name}: measuring ${load.duration ?? DURATION_S}s`);
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
  const pgBefore = cpuByPid(postmasterPid ? postgresPids() : []);
  const result = await drive(load);
  const serverCpu = cpuSpent(serverBefore, cpuByPid(pid ? [pid] : []));
  const mainCpu = mainThreadCpu(pid) - mainBefore;
  const pgCpu = cpuSpent(pgBefore, cpuByPid(postmasterPid ? postgresPids() : []));
  if (sampler) clearInterval(sampler);
  return {
    name,
    rps: result.rps,
    p50: result.p50,
    p99: result.p99,
    rssMb: pid ? rssMb : undefined,
    statuses: result.statuses,
    errors: result.errors,
    cpuServer: pid && result.total ? serverCpu / result.total : undefined,
    cpuServerMain: pid && result.total ? mainCpu / result.total : undefined,
    cpuPg: result.total ? pgCpu / result.total : undefined,
    note,
  };
}

/** What a paid or rejected request could write: row counts, units, rate-limit points, last use. */
async function writeSnapshot(client: pg.Client): Promise<string> {
  const { rows } = await client.query<{ s: string }>(
    `SELECT concat_ws(' ',
       (SELECT count(*) FROM idempotency_records), (SELECT count(*) FROM usage_events),
       (SELECT count(*) FROM unit_holds), (SELECT count(*) FROM unit_holds WHERE status = 'held'),
       (SELECT coalesce(sum(c), 0) FROM rate_windows, unnest(counts) AS c), (SELECT count(*) FROM rate_windows),
       (SELECT sum(remaining_units) FROM api_keys), (SELECT sum(in_flight) FROM api_keys),
       (SELECT max(last_used_at) FROM api_keys)) AS s`,
  );
  return rows[0]!.s;
}

async function inFlight(client: pg.Client): Promise<number> {
  const { rows } = await client.query<{ n: number }>('SELECT coalesce(sum(in_flight), 0)::int AS n FROM api_keys');
  return rows[0]!.n;
}

async function settle(): Promise<void> {
  await new Promise((r) => setTimeout(r, 1_000)); // requests still in flight when the load stopped
}

const fmt = (n: number, digits = 0) => n.toFixed(digits);
/** A difference with its sign: +0.31, -0.05. */
const signed = (n: number, digits = 0) => `${n >= 0 ? '+' : ''}${n.toFixed(digits)}`;

async function main(): Promise<void> {
  const started = Date.now();
  const startLoad = loadavg()
    .map((n) => n.toFixed(2))
    .join(' ');
  const dataDir = mkdtempSync(join(tmpdir(), 'wgs-bench-'));
  benchDataDir = dataDir;
  const appPort = await freePort();
  const floorPort = await freePort();
  const providerPort = await freePort();
  const baseEnv: NodeJS.ProcessEnv = {
    ...process.env,
    NEXT_TELEMETRY_DISABLED: '1',
    NODE_ENV: 'production',
    NEXT_DIST_DIR: DIST_DIR,
    WGS_DATA_DIR: dataDir,
  };
  delete baseEnv.DATABASE_URL;
  delete baseEnv.NODE_OPTIONS;
  // Experiments only (e.g. a heap cap); the default run measures the product as shipped.
  // The product as production runs it: a request log line per /v1 request and Prometheus metrics
  // recorded; BENCH_OBSERVABILITY=off measures it without both (the refused-request counts
  // stay on: they have no switch).
  const observability =
    process.env.BENCH_OBSERVABILITY === 'off'
      ? { LOG_FORMAT: 'off' }
      : { LOG_FORMAT: 'json', METRICS_TOKEN: `bench-metrics-token-${runId}` };
  const productEnv = { ...observability, ...(process.env.BENCH_NODE_OPTIONS ? { NODE_OPTIONS: process.env.BENCH_NODE_OPTIONS } : {}) };

  ensureBuild(ROOT, DIST_DIR, log);

  log(`starting the product on 127.0.0.1:${appPort} (data dir ${dataDir})`);
  const start = startCommand(ROOT);
  // BENCH_NODE_ARGS: V8 flags NODE_OPTIONS refuses (e.g. --trace-gc), put before the start script's own.
  const extraArgs = process.env.BENCH_NODE_ARGS ? process.env.BENCH_NODE_ARGS.split(/\s+/).filter(Boolean) : [];
  const app = await spawnNode(
    [...extraArgs, ...start.args],
    { ...baseEnv, ...start.env, ...productEnv, PORT: String(appPort), HOST: '127.0.0.1' },
    /serving on/,
    180_000,
  );

  const provider = await spawnNode(
    ['--import', 'tsx', 'scripts/bench/instant-provider.ts'],
    { ...baseEnv, PORT: String(providerPort), HOST: '127.0.0.1' },
    /listening/,
    60_000,
  );
  const provider$ = `http://127.0.0.1:${providerPort}/v1`;

  // Bench-only packages: large quota, limits far above the offered load; one on the local
  // engine, one through a provider that answers at once.
  const benchPackage = (slug: string, engine: string) => ({
    slug,
    name: `Benchmark (${engine})`,
    quota_units: 100_000_000,
    limits: { requests_per_minute: 1_000_000, concurrency: 1_000, max_upload_bytes: 1_048_576 },
    operations: { 'text.generate': { engine, units: 1, output_formats: ['text', 'markdown'] } },
  });
  const packagesFile = join(dataDir, 'bench-packages.json');
  writeFileSync(
    packagesFile,
    JSON.stringify({
      providers: { instant: { type: 'openai-compatible', base_url: provider$ } },
      packages: [benchPackage('bench', 'local'), benchPackage('bench-provider', 'instant:bench-model')],
    }),
  );
  runCli(['packages', 'apply', packagesFile, '--json'], baseEnv);
  const productKey = String(runCli(['keys', 'create', '--package', 'bench', '--label', 'bench product', '--json'], baseEnv).key);
  const floorKey = String(runCli(['keys', 'create', '--package', 'bench', '--label', 'bench floor', '--json'], baseEnv).key);
  const inProcessKey = String(runCli(['keys', 'create', '--package', 'bench', '--label', 'bench in-process', '--json'], baseEnv).key);
  const providerKey = String(
    runCli(['keys', 'create', '--package', 'bench-provider', '--label', 'bench provider path', '--json'], baseEnv).key,
  );

  const pgDir = join(dataDir, 'pg');
  const pgPort = Number(readFileSync(join(pgDir, 'postmaster.pid'), 'utf8').split('\n')[3]);
  const password = readFileSync(join(dataDir, 'pg-password'), 'utf8').trim();
  const databaseUrl = `postgresql://postgres:${encodeURIComponent(password)}@127.0.0.1:${pgPort}/wgs`;
  const floor = await spawnNode(
    ['--import', 'tsx', 'scripts/bench/bare-floor.ts'],
    { ...baseEnv, DATABASE_URL: databaseUrl, PORT: String(floorPort), HOST: '127.0.0.1' },
    /listening/,
    60_000,
  );
  postmasterPid = Number(readFileSync(join(pgDir, 'postmaster.pid'), 'utf8').split('\n')[0]);
  const stats = new pg.Client({ connectionString: databaseUrl });
  await stats.connect();

  const app$ = `http://127.0.0.1:${appPort}`;
  await fetch(`${app$}/healthz`).then((r) => r.arrayBuffer());
  const idleRss = memoryOf(app.pid!).rss;
  const paid = (key: string) => ({
    method: 'POST' as const,
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ input: 'Summarise the benefits of idempotent APIs in two sentences.' }),
    freshKey: true,
  });

  const rows: Measured[] = [];
  const trivial = await measure('trivial route  GET /healthz', { url: `${app$}/healthz` }, app.pid);
  rows.push(trivial);
  const product = await measure('text.generate  (product)', { url: `${app$}/v1/text/generate`, ...paid(productKey) }, app.pid);
  rows.push(product);
  // The provider path right after the local one: the two are compared, so nothing (the bare
  // floor's database load, its autovacuum) may run between them.
  const viaProvider = await measure('text.generate  (provider path)', { url: `${app$}/v1/text/generate`, ...paid(providerKey) }, app.pid);
  rows.push(viaProvider);
  const bare = await measure(
    'bare floor     (node:http+pg)',
    { url: `http://127.0.0.1:${floorPort}/v1/text/generate`, ...paid(floorKey) },
    floor.pid,
  );
  rows.push(bare);
  const completion = {
    method: 'POST' as const,
    headers: { authorization: 'Bearer bench', 'content-type': 'application/json' },
    body: JSON.stringify({
      model: 'bench-model',
      messages: [{ role: 'user', content: 'Summarise the benefits of idempotent APIs in two sentences.' }],
    }),
  };
  const direct = await measure('instant provider (direct)', { url: `${provider$}/chat/completions`, ...completion }, provider.pid);
  rows.push(direct);

  // Rejections: a well-formed but unknown key (401) and a schema failure (422).
  await settle();
  let before = await writeSnapshot(stats);
  const unknownKey = `wgs_live_${'x'.repeat(40)}`;
  const r401 = await measure('401 unknown key', { url: `${app$}/v1/text/generate`, ...paid(unknownKey) }, app.pid);
  await settle();
  let after = await writeSnapshot(stats);
  r401.note = before === after ? 'no db write' : `DB CHANGED: ${before} -> ${after}`;
  rows.push(r401);
  before = after;
  const r422 = await measure(
    '422 schema',
    { url: `${app$}/v1/text/generate`, ...paid(productKey), body: JSON.stringify({ input: '' }) },
    app.pid,
  );
  await settle();
  after = await writeSnapshot(stats);
  r422.note = before === after ? 'no db write' : `DB CHANGED: ${before} -> ${after}`;
  rows.push(r422);

  // Issue 19's question, in the same run: what the request log and the metrics cost. A second
  // instance of the product on the same database with both off (LOG_FORMAT=off, no metrics; the
  // refused-request counts have no switch) takes the paid path and the two rejections.
  const quietPort = await freePort();
  const quiet = await spawnNode(
    [...extraArgs, ...start.args],
    { ...baseEnv, ...start.env, LOG_FORMAT: 'off', DATABASE_URL: databaseUrl, PORT: String(quietPort), HOST: '127.0.0.1' },
    /serving on/,
    180_000,
  );
  const quiet$ = `http://127.0.0.1:${quietPort}`;
  const quietPaid = await measure(
    'text.generate  (log+metrics off)',
    { url: `${quiet$}/v1/text/generate`, ...paid(productKey) },
    quiet.pid,
  );
  const quiet401 = await measure('401 (log+metrics off)', { url: `${quiet$}/v1/text/generate`, ...paid(unknownKey) }, quiet.pid);
  const quiet422 = await measure(
    '422 (log+metrics off)',
    { url: `${quiet$}/v1/text/generate`, ...paid(productKey), body: JSON.stringify({ input: '' }) },
    quiet.pid,
  );
  rows.push(quietPaid, quiet401, quiet422);
  quiet.kill('SIGTERM');
  await new Promise((resolve) => quiet.once('exit', resolve));

  // Idempotent replay: one key, stored once, replayed by every request.
  const replayKey = `bench-replay-${runId}`;
  const first = await fetch(`${app$}/v1/text/generate`, {
    method: 'POST',
    headers: { ...paid(productKey).headers, 'idempotency-key': replayKey },
    body: paid(productKey).body,
  });
  if (first.status !== 200) throw new Error(`replay setup answered ${first.status}: ${await first.text()}`);
  const replay = await measure(
    'replay (same Idempotency-Key)',
    {
      url: `${app$}/v1/text/generate`,
      ...paid(productKey),
      freshKey: false,
      headers: { ...paid(productKey).headers, 'idempotency-key': replayKey },
    },
    app.pid,
  );
  rows.push(replay);

  // The pipeline without Next: the route handler called in this process.
  log(`handler in-process: warm-up 3s, measuring ${DURATION_S}s`);
  const pgStart = cpuByPid(postgresPids());
  const handler = await measureHandlerInProcess({
    databaseUrl,
    apiKey: inProcessKey,
    body: paid(inProcessKey).body,
    seconds: DURATION_S,
    concurrency: CONNECTIONS,
    databaseCpuMs: () => cpuSpent(pgStart, cpuByPid(postgresPids())),
  });
  rows.push({
    name: 'handler in-process (no Next)',
    rps: handler.rps,
    p50: Number.NaN,
    p99: Number.NaN,
    statuses: handler.statuses,
    errors: 0,
    cpuServer: handler.cpuMs,
    cpuPg: handler.databaseCpuMs,
    note: 'CPU of the bench process',
  });
  const handlerRow = rows[rows.length - 1]!;

  // Latency at a fixed offered load. The product runs last: should it fall behind the rate,
  // its backlog must not spill into another scenario's figures.
  const fixedTrivial = await measure(`trivial route @ ${FIXED_RATE}/s`, { url: `${app$}/healthz`, overallRate: FIXED_RATE }, app.pid);
  const fixedBare = await measure(
    `bare floor @ ${FIXED_RATE}/s`,
    { url: `http://127.0.0.1:${floorPort}/v1/text/generate`, ...paid(floorKey), overallRate: FIXED_RATE },
    floor.pid,
  );
  await settle();
  /** The paid call open loop at `rate`, through the local (productKey) or the provider path. */
  const paidAt = (name: string, key: string, rate: number) =>
    measure(`${name} @ ${rate}/s`, { url: `${app$}/v1/text/generate`, ...paid(key), overallRate: rate }, app.pid);
  const fixedProduct = await paidAt('text.generate', productKey, FIXED_RATE);
  const fixedDirect = await measure(
    `instant provider @ ${FIXED_RATE}/s`,
    { url: `${provider$}/chat/completions`, ...completion, overallRate: FIXED_RATE },
    provider.pid,
  );
  await settle();
  const fixedProvider = await paidAt('provider path', providerKey, FIXED_RATE);
  rows.push(fixedProduct, fixedTrivial, fixedBare, fixedProvider, fixedDirect);
  const lowerRates: { rate: number; local: Measured; provider: Measured }[] = [];
  for (const rate of LOWER_RATES) {
    for (let waited = 0; waited < 120 && (await inFlight(stats)) > 0; waited++) await settle();
    const local = await paidAt('text.generate', productKey, rate);
    const provider = await paidAt('provider path', providerKey, rate);
    rows.push(local, provider);
    lowerRates.push({ rate, local, provider });
  }

  const memory = memoryOf(app.pid!);
  const appRows = [product, fixedProduct, viaProvider, fixedProvider];
  const rssMax = Math.max(...appRows.map((r) => r.rssMb ?? 0));
  const addedCpu = (viaProvider.cpuServer ?? 0) - (product.cpuServer ?? 0);
  const addedP99 = fixedProvider.p99 - fixedDirect.p99;

  // Requests the load generator gave up on may still be running (a backlog at a fixed rate):
  // the books are read once every request has settled its hold.
  for (let waited = 0; waited < 120 && (await inFlight(stats)) > 0; waited++) await settle();
  // Consistency check of the product's own books after the load (not a timing).
  const { rows: books } = await stats.query<{ label: string; remaining: number; captured: string; usage: string; held: string }>(
    `SELECT k.label, k.remaining_units AS remaining,
            (SELECT coalesce(sum(units),0) FROM unit_holds h WHERE h.api_key_id = k.id AND h.status = 'captured')::text AS captured,
            (SELECT count(*) FROM usage_events u WHERE u.api_key_id = k.id AND u.outcome = 'succeeded')::text AS usage,
            (SELECT count(*) FROM unit_holds h WHERE h.api_key_id = k.id AND h.status = 'held')::text AS held
       FROM api_keys k JOIN package_versions v ON v.id = k.package_version_id JOIN packages p ON p.id = v.package_id
      WHERE p.slug IN ('bench', 'bench-provider') ORDER BY k.label`,
  );
  await stats.end();

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
    r.note ?? '',
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...table.map((row) => row[i]!.length)));
  const line = (cells: string[]) =>
    cells
      .map((c, i) => (i === 0 || i >= 6 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!)))
      .join('  ')
      .trimEnd();
  const out = (s = '') => process.stdout.write(`${s}\n`);

  const ratioTrivial = product.rps / trivial.rps;
  const ratioBare = product.rps / bare.rps;
  out(
    `machine: ${cpus().length} x ${cpus()[0]?.model ?? 'cpu'}, ${fmt(totalmem() / 2 ** 30, 1)} GiB, node ${process.version}; ${new Date().toISOString()}`,
  );
  out(
    `load average (1/5/15 min) at the end: ${loadavg()
      .map((n) => n.toFixed(2))
      .join(' ')}; at the start: ${startLoad}`,
  );
  if (process.env.BENCH_NODE_OPTIONS) out(`experiment: product started with NODE_OPTIONS=${process.env.BENCH_NODE_OPTIONS}`);
  out(
    `observability: ${process.env.BENCH_OBSERVABILITY === 'off' ? 'request log and metrics off (BENCH_OBSERVABILITY=off)' : 'request log (json) and Prometheus metrics on, as in production'}; refused-request counts on`,
  );
  out(
    `load: autocannon, ${CONNECTIONS} connections, ${WARMUP_S}s warm-up + ${DURATION_S}s per scenario; fixed-rate runs ${FIXED_RATE} req/s open loop (loadtest: one request every ${1000 / FIXED_RATE} ms, whatever the answers)`,
  );
  out('');
  out(line(header));
  out(line(widths.map((w) => '-'.repeat(w))));
  for (const row of table) out(line(row));
  out('');
  out(`product / trivial route: ${fmt(ratioTrivial, 2)} x    product / bare floor: ${fmt(ratioBare, 2)} x`);
  out(
    `CPU ms per paid request: product ${fmt(product.cpuServer ?? 0, 2)}, of which the pipeline itself ~${fmt(handlerRow.cpuServer ?? 0, 2)} (handler in-process) and Next + HTTP the rest; trivial route ${fmt(trivial.cpuServer ?? 0, 2)}`,
  );
  const threads = (r: Measured) =>
    `main thread ${fmt(r.cpuServerMain ?? 0, 2)} + other threads ${fmt((r.cpuServer ?? 0) - (r.cpuServerMain ?? 0), 2)}`;
  out(
    `server CPU ms per request by thread (other threads: V8's garbage collector helpers, libuv): product ${threads(product)}; trivial route ${threads(trivial)}; 422 ${threads(r422)}`,
  );
  out(
    `provider path: ${fmt(viaProvider.rps)} req/s; server CPU ms per request ${fmt(viaProvider.cpuServer ?? 0, 2)} against the local path's ${fmt(product.cpuServer ?? 0, 2)} (${signed(addedCpu, 2)}); p99 at ${FIXED_RATE} req/s ${fmt(fixedProvider.p99)} ms against the instant provider's own ${fmt(fixedDirect.p99)} ms (${signed(addedP99)})`,
  );
  for (const { rate, local, provider } of lowerRates) {
    out(
      `at ${rate} req/s offered: provider path ${fmt(provider.rps)} req/s, p99 ${fmt(provider.p99)} ms, server CPU ${fmt(provider.cpuServer ?? 0, 2)} ms; local path ${fmt(local.rps)} req/s, p99 ${fmt(local.p99)} ms, ${fmt(local.cpuServer ?? 0, 2)} ms (${signed((provider.cpuServer ?? 0) - (local.cpuServer ?? 0), 2)})`,
    );
  }
  const versus = (on: Measured, off: Measured) =>
    `${fmt(on.rps)} vs ${fmt(off.rps)} req/s, ${fmt(on.cpuServer ?? 0, 2)} vs ${fmt(off.cpuServer ?? 0, 2)} ms server CPU`;
  out(
    `request log + metrics on vs off (same run, second instance): paid path ${versus(product, quietPaid)}; 401 ${versus(r401, quiet401)}; 422 ${versus(r422, quiet422)}`,
  );
  out(
    `product RSS: ${fmt(idleRss)} MB idle after start, max ${fmt(rssMax)} MB under the local and provider loads, VmHWM ${fmt(memory.hwm)} MB (PostgreSQL's own processes not included)`,
  );
  for (const b of books) {
    out(
      `books ${b.label}: remaining ${b.remaining}, captured units ${b.captured}, succeeded usage events ${b.usage}, open holds ${b.held}`,
    );
  }
  const targets = [
    ['provider path CPU <= local path + 0.5 ms per request', addedCpu <= 0.5],
    [`gate's added p99 <= 25 ms at ${FIXED_RATE} req/s`, addedP99 <= 25],
    ['rejections without a database write', r401.note === 'no db write' && r422.note === 'no db write'],
    ['RSS <= 300 MB', rssMax <= 300],
  ] as const;
  out(`targets: ${targets.map(([what, ok]) => `${what}: ${ok ? 'met' : 'NOT met'}`).join('; ')}`);
  out(`(total bench time ${fmt((Date.now() - started) / 1000)} s)`);
  out(
    `bench: text.generate ${fmt(product.rps)} req/s, ${fmt(ratioBare, 2)} x bare floor, provider path ${fmt(viaProvider.rps)} req/s, ${signed(addedCpu, 2)} ms cpu, added p99 ${fmt(addedP99)} ms, rss ${fmt(rssMax)} MB`,
  );

  await shutdown(dataDir);
}

async function shutdown(dataDir?: string): Promise<void> {
  for (const child of children) {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
  }
  const deadline = Date.now() + 20_000;
  while (Date.now() < deadline && children.some((c) => c.exitCode === null && c.signalCode === null)) {
    await new Promise((r) => setTimeout(r, 100));
  }
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  if (dataDir) {
    // The app stops its embedded PostgreSQL on SIGTERM; a survivor (app killed) is stopped here.
    const pidFile = join(dataDir, 'pg', 'postmaster.pid');
    if (existsSync(pidFile)) {
      const pid = Number(readFileSync(pidFile, 'utf8').split('\n')[0]);
      try {
        process.kill(pid, 'SIGINT');
        await new Promise((r) => setTimeout(r, 1_000));
      } catch {
        // already gone
      }
    }
    rmSync(dataDir, { recursive: true, force: true });
  }
}

main().catch(async (error: unknown) => {
  process.stderr.write(`[bench] failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  await shutdown(benchDataDir);
  process.exit(1);
});
