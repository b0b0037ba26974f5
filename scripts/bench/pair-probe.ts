// A setting's worth, measured in pairs: two instances of the product on one database, A as the
// bench runs it (`npm start`'s, request log and metrics on, as in production) and B the
// same with PAIR_NODE_OPTIONS added (NODE_OPTIONS, so only the flags it allows) and PAIR_ENV's
// variables set (NAME=value, space-separated; NAME= unsets one), loaded in turn in 5 s windows
// (A B, B A, ...), closed loop with 50 connections. The machine's speed drifts by 2-3 x between
// runs and within one, so two full bench runs rarely settle a 10% question; a ratio taken pair by
// pair does. Prints each window's server CPU per request and req/s, and their A/B ratios. Both
// run with AsyncLocalStorage in use, as in production: the start's own warm-up request is served
// by Next.
// Run: PAIR_NODE_OPTIONS=--no-experimental-async-context-frame npx tsx scripts/bench/pair-probe.ts   (the start's AsyncContextFrame)
//      PAIR_ENV="LOG_FORMAT=off METRICS_TOKEN=" npx tsx scripts/bench/pair-probe.ts   (what observing costs)
//      (PAIR_PATH=local|provider|healthz, PAIR_ROUNDS=6)
import { measureWindow, warmUp, type Load } from './load';
import { runStartingProcesses } from './processes';
import { paidLoad } from './runner';
import { productEnv, startProduct, startStack } from './stack';

const PATH = process.env.PAIR_PATH ?? 'local';
const ROUNDS = Number(process.env.PAIR_ROUNDS ?? 6);
const WINDOW_S = 5;

const median = (values: number[]) => [...values].sort((a, b) => a - b)[values.length >> 1]!;

/** A's figure over B's, window pair by window pair. */
const pairRatios = (series: Record<'A' | 'B', number[]>) => series.A.map((a, i) => a / series.B[i]!);

async function main(): Promise<void> {
  const bOptions = process.env.PAIR_NODE_OPTIONS ?? '';
  const bEnv = (process.env.PAIR_ENV ?? '').split(' ').filter(Boolean);
  if (!bOptions && bEnv.length === 0) throw new Error('PAIR_NODE_OPTIONS or PAIR_ENV: what instance B runs with');
  if (bEnv.some((pair) => !/^[A-Z_][A-Z0-9_]*=/.test(pair))) throw new Error(`PAIR_ENV: NAME=value pairs, not "${process.env.PAIR_ENV}"`);
  if (!['local', 'provider', 'healthz'].includes(PATH)) throw new Error(`PAIR_PATH: local, provider or healthz, not "${PATH}"`);
  const stack = await startStack();
  const env: Record<string, string> = { ...productEnv(), DATABASE_URL: stack.databaseUrl };
  if (bOptions) env.NODE_OPTIONS = [env.NODE_OPTIONS, bOptions].filter(Boolean).join(' ');
  const baseEnv = { ...stack.baseEnv };
  for (const pair of bEnv) {
    const at = pair.indexOf('=');
    const [name, value] = [pair.slice(0, at), pair.slice(at + 1)];
    if (value) {
      env[name] = value;
    } else {
      delete env[name];
      delete baseEnv[name];
    }
  }
  const b = await startProduct(baseEnv, env);
  const instances = { A: { pid: stack.app.pid!, url: stack.appUrl }, B: { pid: b.child.pid!, url: b.url } };
  const key = stack.keys[PATH === 'provider' ? 'provider' : 'product'];
  const load = (url: string): Load =>
    PATH === 'healthz'
      ? { url: `${url}/healthz`, method: 'GET', connections: 50, duration: WINDOW_S }
      : paidLoad(url, key, { duration: WINDOW_S });
  for (const [name, { url }] of Object.entries(instances)) await warmUp(name, load(url));
  const perRequest: Record<'A' | 'B', number[]> = { A: [], B: [] };
  const throughput: Record<'A' | 'B', number[]> = { A: [], B: [] };
  for (let round = 0; round < ROUNDS; round++) {
    for (const name of round % 2 ? (['B', 'A'] as const) : (['A', 'B'] as const)) {
      const { pid, url } = instances[name];
      const window = await measureWindow(name, load(url), pid, stack.postmasterPid);
      perRequest[name].push(window.spent.server / window.run.total);
      throughput[name].push(window.run.rps);
    }
  }
  const ratios = pairRatios(perRequest);
  console.log(
    `${PATH}: A as the bench runs it, B with${bOptions ? ` NODE_OPTIONS=${bOptions}` : ''}${bEnv.length ? ` ${bEnv.join(' ')}` : ''}; server CPU ms per request, window by window`,
  );
  for (const name of ['A', 'B'] as const) {
    console.log(`  ${name}: ${perRequest[name].map((ms) => ms.toFixed(3)).join(' ')} (median ${median(perRequest[name]).toFixed(3)})`);
  }
  console.log(`  A/B, pair by pair: ${ratios.map((r) => r.toFixed(2)).join(' ')} (median ${median(ratios).toFixed(2)})`);
  const rpsRatios = pairRatios(throughput);
  console.log(`  req/s A: ${throughput.A.map((r) => r.toFixed(0)).join(' ')}; B: ${throughput.B.map((r) => r.toFixed(0)).join(' ')}`);
  console.log(`  req/s A/B, pair by pair: ${rpsRatios.map((r) => r.toFixed(2)).join(' ')} (median ${median(rpsRatios).toFixed(2)})`);
  await stack.stats.end();
}

runStartingProcesses(main);
