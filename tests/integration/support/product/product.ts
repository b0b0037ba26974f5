import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import pg from 'pg';
import { inject } from 'vitest';
import { resetConfigForTests } from '@/server/config';
import { disconnectDb } from '@/server/db/client';
import { migrateDatabase } from '@/server/db/migrate';
import { freePort, freePorts } from '../../../../server/db/free-port';
import { ensureBuilds } from '../../../../scripts/lib/server-bundle';
import { startCommand } from '../../../../scripts/lib/start-command';
import { cloneTemplate } from '../../../setup/test-database';
export { freePort, freePorts };

// The real product (`npm start`'s command, scripts/start.mjs) as child processes on 127.0.0.1, for the
// multi-instance and fault tests: a database of their own on the test server, a prebuilt
// Next app (the build `npm test` makes first, or NEXT_DIST_DIR's), distinct ports, every process killed in afterAll.

export const REPO_ROOT = resolve(import.meta.dirname, '../../../..');
export const DIST_DIR = process.env.NEXT_DIST_DIR || '.next';
export const SIGNING_SECRET = 'product-test-signing-secret-0123456789abcdef';

/**
 * What `npm run build` makes, when there is none of the current code: the server package and its
 * entry points into dist/, then the app into DIST_DIR (as npm start would).
 */
export const ensureBuild = (): void => ensureBuilds(REPO_ROOT, DIST_DIR);

export interface TestDatabase {
  url: string;
  drop(): Promise<void>;
}

/** A fresh, migrated database on the test server (a clone of its template), named after `prefix`. */
export async function createDatabase(prefix: string): Promise<TestDatabase> {
  const databases = inject('testDatabases');
  const { name, url } = await cloneTemplate(databases, prefix);
  await migrateDatabase(url); // the template's migrations are the current ones: this only checks
  return {
    url,
    async drop() {
      const cleanup = new pg.Client({ connectionString: databases.serverUrl });
      await cleanup.connect();
      await cleanup.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
      await cleanup.end();
    },
  };
}

/** Points this test process's own pool (createTestKey, sweepExpiredHolds, ...) at `url`. */
export async function useDatabaseInThisProcess(url: string): Promise<void> {
  await disconnectDb();
  process.env.DATABASE_URL = url;
  resetConfigForTests();
}

export interface Product {
  port: number;
  base: string;
  pid: number;
  child: ChildProcess;
  output(): string;
  exited: Promise<number | null>;
  /** SIGKILL: the process dies mid-whatever. */
  kill(): Promise<void>;
  /** SIGTERM and wait. */
  stop(): Promise<void>;
}

const started = new Set<ChildProcess>();

export function killAllProducts(): void {
  for (const child of started) {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  }
  started.clear();
}

export async function startProduct(options: {
  databaseUrl: string;
  port?: number;
  env?: Record<string, string>;
  /** More arguments for `npm start`'s scripts/start.mjs (`--v1-through-next`). */
  args?: string[];
}): Promise<Product> {
  const port = options.port ?? (await freePort());
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const name of ['NODE_OPTIONS', 'VITEST', 'VITEST_WORKER_ID', 'VITEST_POOL_ID', 'TEST_DATABASE_URL', 'PUBLIC_BASE_URL'])
    delete env[name];
  Object.assign(env, {
    NODE_ENV: 'production',
    NEXT_TELEMETRY_DISABLED: '1',
    NEXT_DIST_DIR: DIST_DIR,
    DATABASE_URL: options.databaseUrl,
    HOST: '127.0.0.1',
    PORT: String(port),
    SIGNING_SECRET,
    RUN_WORKER: 'false',
    WGS_DATA_DIR: mkdtempSync(join(tmpdir(), 'wgs-product-files-')),
    ...options.env,
  });
  const start = startCommand(REPO_ROOT);
  const child = spawn(process.execPath, [...start.args, ...(options.args ?? [])], {
    cwd: REPO_ROOT,
    env: { ...env, ...start.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  started.add(child);
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<number | null>((resolveExit) => child.once('exit', (code) => resolveExit(code)));
  const base = `http://127.0.0.1:${port}`;
  const product: Product = {
    port,
    base,
    pid: child.pid!,
    child,
    output: () => output,
    exited,
    async kill() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      await exited;
    },
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
      await exited;
      clearTimeout(timer);
    },
  };
  let gone = false;
  void exited.then(() => (gone = true));
  const deadline = Date.now() + 150_000;
  for (;;) {
    if (gone) throw new Error(`the product exited before it served:\n${output}`);
    if ((await healthStatus(port, deadline - Date.now())) === 200) return product;
    if (Date.now() > deadline) {
      await product.kill();
      throw new Error(`the product did not answer /healthz on ${port}:\n${output}`);
    }
    await new Promise((r) => setTimeout(r, 200));
  }
}

/**
 * GET /healthz on a connection of its own, which the product closes once it answered
 * (`Connection: close`); undefined when nothing listens or no answer came in `timeoutMs`. A
 * connected poll waits for its answer however slow the start is, so the product never has more than
 * one poll's connection, and none once it answered. A keep-alive poll (fetch) left its connection
 * open in the test's pool, and one that gave up on a loaded machine left a dead one the server
 * closed whenever it got to it: places of MAX_CONNECTIONS that freed up at a moment nobody chose.
 */
function healthStatus(port: number, timeoutMs: number): Promise<number | undefined> {
  return new Promise((resolveStatus) => {
    const socket = connect(port, '127.0.0.1');
    let received = '';
    const timer = setTimeout(() => socket.destroy(), timeoutMs);
    socket.on('data', (chunk: Buffer) => (received += chunk.toString('latin1')));
    socket.once('error', () => {}); // not listening yet: 'close' follows
    socket.once('close', () => {
      clearTimeout(timer);
      const status = /^HTTP\/1\.1 (\d{3}) /.exec(received)?.[1];
      resolveStatus(status === undefined ? undefined : Number(status));
    });
    socket.write('GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n');
  });
}

export interface Reply {
  status: number;
  headers: Headers;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  json: any;
  text: string;
}

export const newKey = (tag = 'k') => `${tag}-${randomBytes(9).toString('base64url')}`;

/** POST a /v1 operation over HTTP. A hang fails the test (timeout), it is never "a slow success". */
export async function post(
  base: string,
  path: string,
  apiKey: string,
  body: unknown,
  idempotencyKey: string,
  timeoutMs = 60_000,
): Promise<Reply> {
  const response = await fetch(`${base}${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json', 'idempotency-key': idempotencyKey },
    body: JSON.stringify(body),
    signal: AbortSignal.timeout(timeoutMs),
  });
  const text = await response.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: response.status, headers: response.headers, json, text };
}

export interface Books {
  remaining: number;
  inFlight: number;
  captured: number;
  capturedUnits: number;
  released: number;
  held: number;
  succeeded: number;
  failed: number;
}

/** The key's balance and everything charged or held against it, straight from the database. */
export async function books(databaseUrl: string, apiKeyId: string): Promise<Books> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const { rows } = await client.query(
      `SELECT k.remaining_units AS remaining, k.in_flight AS "inFlight",
              (SELECT count(*) FROM unit_holds h WHERE h.api_key_id = k.id AND h.status = 'captured')::int AS captured,
              (SELECT coalesce(sum(units), 0) FROM unit_holds h WHERE h.api_key_id = k.id AND h.status = 'captured')::int AS "capturedUnits",
              (SELECT count(*) FROM unit_holds h WHERE h.api_key_id = k.id AND h.status = 'released')::int AS released,
              (SELECT count(*) FROM unit_holds h WHERE h.api_key_id = k.id AND h.status = 'held')::int AS held,
              (SELECT count(*) FROM usage_events u WHERE u.api_key_id = k.id AND u.outcome = 'succeeded')::int AS succeeded,
              (SELECT count(*) FROM usage_events u WHERE u.api_key_id = k.id AND u.outcome = 'failed')::int AS failed
         FROM api_keys k WHERE k.id = $1`,
      [apiKeyId],
    );
    return rows[0] as Books;
  } finally {
    await client.end();
  }
}

export function tally(replies: Reply[]): Record<number, number> {
  const counts: Record<number, number> = {};
  for (const reply of replies) counts[reply.status] = (counts[reply.status] ?? 0) + 1;
  return counts;
}
