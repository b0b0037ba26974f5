import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { freePort } from '../../server/db/free-port';
import { ensureBuilds } from '../lib/server-bundle';
import { startCommand } from '../lib/start-command';
import { BENCH_QUOTA } from './books';
import { memoryOf } from './proc-stats';
import { removeOnShutdown, runCli, spawnNode } from './processes';
import { DIST_DIR, log, METRICS_TOKEN, NODE_ARGS, NODE_OPTIONS, OBSERVABILITY_OFF, ROOT, WITHOUT } from './settings';
import { withoutSettings } from './start-settings';

// What the scenarios run against, all on 127.0.0.1 and a temporary data dir: the product as
// `npm start` starts it (with its embedded PostgreSQL), the instant provider, bench-only packages
// and keys applied through the CLI, and the bare floor on the product's database.

export type KeyName = 'product' | 'provider' | 'floor' | 'inProcess';

/** Each bench key's label, by which the books name it. */
export const KEY_LABELS: Record<KeyName, string> = {
  product: 'bench product',
  floor: 'bench floor',
  inProcess: 'bench in-process',
  provider: 'bench provider path',
};

/** The peer gateway (Portkey's open-source gateway, its Node build), headless. */
const PEER_SERVER = 'node_modules/@portkey-ai/gateway/build/start-server.js';

export interface Stack {
  dataDir: string;
  /** Environment of every process started: the data dir, production mode, no inherited database. */
  baseEnv: NodeJS.ProcessEnv;
  app: ChildProcess;
  appUrl: string;
  /** Where the product's promotion counter (scripts/bench/promotion-counter.mjs) writes. */
  appPromotionFile: string;
  /** The peer gateway, proxying chat completions to the instant provider. */
  peer: ChildProcess;
  peerUrl: string;
  provider: ChildProcess;
  /** The instant provider's API root (…/v1). */
  providerUrl: string;
  floor: ChildProcess;
  floorUrl: string;
  keys: Record<KeyName, string>;
  databaseUrl: string;
  postmasterPid: number;
  /** The bench's own connection, for snapshots and books. */
  stats: pg.Client;
  /** The product's RSS after start and one request, in MB. */
  idleRss: number;
}

/**
 * Starts `npm start`'s node command (less BENCH_WITHOUT's settings) with `env` on a free port, with
 * the promotion counter preloaded (idle until signalled); resolves with it, its URL and the
 * counter's file.
 */
export async function startProduct(baseEnv: NodeJS.ProcessEnv, env: Record<string, string>) {
  const port = await freePort();
  const start = withoutSettings(startCommand(ROOT), WITHOUT);
  const promotionFile = join(baseEnv.WGS_DATA_DIR ?? tmpdir(), `promotion-${port}.json`);
  const child = await spawnNode(
    [...NODE_ARGS, '--import', './scripts/bench/promotion-counter.mjs', ...start.args],
    { ...baseEnv, ...start.env, ...env, PORT: String(port), HOST: '127.0.0.1', PROMOTION_COUNTER_FILE: promotionFile },
    /serving on/,
    180_000,
  );
  return { child, url: `http://127.0.0.1:${port}`, promotionFile };
}

/** Portkey's gateway on a free port (it prints its readiness; its own log of each call is off in headless mode). */
async function startPeer(env: NodeJS.ProcessEnv) {
  const port = await freePort();
  const child = await spawnNode([PEER_SERVER, `--port=${port}`, '--headless'], env, /Ready for connections/, 60_000);
  return { child, url: `http://127.0.0.1:${port}` };
}

/** A helper process of scripts/bench/ (instant provider, bare floor) on a free port. */
async function startHelper(script: string, env: NodeJS.ProcessEnv) {
  const port = await freePort();
  const child = await spawnNode(['--import', 'tsx', script], { ...env, PORT: String(port), HOST: '127.0.0.1' }, /listening/, 60_000);
  return { child, url: `http://127.0.0.1:${port}` };
}

/** The product as production runs it: a request log line per /v1 request, Prometheus metrics recorded. */
export function productEnv(): Record<string, string> {
  const observability: Record<string, string> = OBSERVABILITY_OFF ? { LOG_FORMAT: 'off' } : { LOG_FORMAT: 'json', METRICS_TOKEN };
  return { ...observability, ...(NODE_OPTIONS ? { NODE_OPTIONS } : {}) };
}

/**
 * Bench-only packages: large quota, limits far above the offered load; one on the local engine,
 * one through the instant provider. Returns the keys, one per load that pays.
 */
function applyPackages(baseEnv: NodeJS.ProcessEnv, dataDir: string, providerUrl: string): Record<KeyName, string> {
  const benchPackage = (slug: string, engine: string) => ({
    slug,
    name: `Benchmark (${engine})`,
    quota_units: BENCH_QUOTA,
    limits: { requests_per_minute: 1_000_000, concurrency: 1_000, max_upload_bytes: 1_048_576 },
    operations: {
      'text.generate': { engine, units: 1, output_formats: ['text', 'markdown'] },
      ...(engine === 'local' ? { 'audio.speech': { engine, units: 1, output_formats: ['wav'] } } : {}),
    },
  });
  const packagesFile = join(dataDir, 'bench-packages.json');
  writeFileSync(
    packagesFile,
    JSON.stringify({
      providers: { instant: { type: 'openai-compatible', base_url: providerUrl } },
      packages: [benchPackage('bench', 'local'), benchPackage('bench-provider', 'instant:bench-model')],
    }),
  );
  runCli(['packages', 'apply', packagesFile, '--json'], baseEnv);
  const key = (pkg: string, name: KeyName) =>
    String(runCli(['keys', 'create', '--package', pkg, '--label', KEY_LABELS[name], '--json'], baseEnv).key);
  return {
    product: key('bench', 'product'),
    floor: key('bench', 'floor'),
    inProcess: key('bench', 'inProcess'),
    provider: key('bench-provider', 'provider'),
  };
}

/** The embedded PostgreSQL the product started: its URL and its postmaster's pid. */
function databaseOf(dataDir: string) {
  const pid = readFileSync(join(dataDir, 'pg', 'postmaster.pid'), 'utf8').split('\n');
  const password = readFileSync(join(dataDir, 'pg-password'), 'utf8').trim();
  return { url: `postgresql://postgres:${encodeURIComponent(password)}@127.0.0.1:${Number(pid[3])}/wgs`, postmasterPid: Number(pid[0]) };
}

export async function startStack(): Promise<Stack> {
  const dataDir = mkdtempSync(join(tmpdir(), 'wgs-bench-'));
  removeOnShutdown(dataDir);
  const baseEnv: NodeJS.ProcessEnv = {
    ...process.env,
    NEXT_TELEMETRY_DISABLED: '1',
    NODE_ENV: 'production',
    NEXT_DIST_DIR: DIST_DIR,
    WGS_DATA_DIR: dataDir,
    // Every 401 of the bench comes from 127.0.0.1: the row measures what a refusal costs, so the
    // per-address failure limit (still counted on every 401) is set above the load.
    AUTH_FAILURES_PER_MINUTE: '1000000000',
  };
  delete baseEnv.DATABASE_URL;
  delete baseEnv.NODE_OPTIONS;
  ensureBuilds(ROOT, DIST_DIR, log);
  log(`starting the product (data dir ${dataDir})`);
  const app = await startProduct(baseEnv, productEnv());
  const provider = await startHelper('scripts/bench/instant-provider.ts', baseEnv);
  const providerUrl = `${provider.url}/v1`;
  const keys = applyPackages(baseEnv, dataDir, providerUrl);
  const database = databaseOf(dataDir);
  const floor = await startHelper('scripts/bench/bare-floor.ts', { ...baseEnv, DATABASE_URL: database.url });
  const peer = await startPeer(baseEnv);
  const stats = new pg.Client({ connectionString: database.url });
  await stats.connect();
  await fetch(`${app.url}/healthz`).then((r) => r.arrayBuffer());
  return {
    dataDir,
    baseEnv,
    app: app.child,
    appUrl: app.url,
    appPromotionFile: app.promotionFile,
    peer: peer.child,
    peerUrl: peer.url,
    provider: provider.child,
    providerUrl,
    floor: floor.child,
    floorUrl: floor.url,
    keys,
    databaseUrl: database.url,
    postmasterPid: database.postmasterPid,
    stats,
    idleRss: memoryOf(app.child.pid!).rss,
  };
}
