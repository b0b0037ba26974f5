import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

// `npm start` serves the build of the code it is started from: it builds when there is no build,
// or when a file the build is made from changed since (after a `git pull`, an edit). Processes
// started together (several instances, tests) build once: the others wait for that build.

/**
 * What `next build` reads: the app's folders, the server's contract (the rest of the server is
 * the server package, which Next loads from dist/ at run time: scripts/lib/server-bundle.ts),
 * and the files that configure it.
 */
const SOURCES = [
  'app',
  'components',
  'server/contract',
  'packages/server',
  'instrumentation.ts',
  'proxy.ts',
  'next.config.mjs',
  'tsconfig.json',
  'package.json',
  'package-lock.json',
];
/**
 * The last file `next build` writes (after BUILD_ID, manifests and static pages; it empties the
 * folder first), so a build that is still running or was interrupted does not count as one.
 */
const COMPLETE_MARKER = 'export-marker.json';

/** The latest change under `path` (a file's or a folder's own time, whichever is newer). */
export function newestChange(path: string): number {
  if (!existsSync(path)) return 0;
  const info = statSync(path);
  if (!info.isDirectory()) return info.mtimeMs;
  let newest = info.mtimeMs; // a deleted file shows as its folder's change
  for (const entry of readdirSync(path)) newest = Math.max(newest, newestChange(join(path, entry)));
  return newest;
}

/** Why the build must be made, or undefined when the one in `distDir` is current. */
export function staleBuild(root: string, distDir: string): string | undefined {
  const marker = join(root, distDir, COMPLETE_MARKER);
  if (!existsSync(marker)) return 'no complete build found';
  const builtAt = statSync(marker).mtimeMs;
  return SOURCES.some((source) => newestChange(join(root, source)) > builtAt) ? 'the code changed since the last build' : undefined;
}

function sleep(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Takes the build lock: a folder holding the builder's pid. A lock whose builder is gone (Ctrl-C
 * during a build, a crash) is taken over; a live builder is waited for, however long it takes.
 */
function acquireLock(lock: string, log?: (line: string) => void): void {
  let told = false;
  for (;;) {
    try {
      mkdirSync(lock);
      writeFileSync(join(lock, 'pid'), String(process.pid));
      return;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    let holder = Number.NaN;
    try {
      holder = Number(readFileSync(join(lock, 'pid'), 'utf8'));
    } catch {
      // the holder is between mkdir and writing its pid, or has just released the lock
    }
    if (Number.isInteger(holder) && holder > 0 && !isAlive(holder)) {
      rmSync(lock, { recursive: true, force: true });
      continue;
    }
    if (!told) log?.(`waiting for another process's build (${lock})`);
    told = true;
    sleep(500);
  }
}

/** A build output that can be out of date, and how to make it. */
export interface Buildable {
  /** Why it must be built, or undefined when it is current. */
  stale(): string | undefined;
  build(reason: string): void;
  log?: (line: string) => void;
}

/**
 * Builds when stale, one process at a time: the lock is taken, the output checked again
 * (another process may have built it meanwhile), and built only if still stale.
 */
export function ensureCurrent(lock: string, target: Buildable): void {
  if (!target.stale()) return;
  withBuildLock(
    lock,
    () => {
      const reason = target.stale();
      if (reason) target.build(reason);
    },
    target.log,
  );
}

/** Runs `work` holding the build lock: no other process builds the same output meanwhile. */
export function withBuildLock(lock: string, work: () => void, log?: (line: string) => void): void {
  acquireLock(lock, log);
  try {
    work();
  } finally {
    rmSync(lock, { recursive: true, force: true });
  }
}

/**
 * Builds the app when needed, one process at a time. `log` gets a line saying why; without it
 * the build's own output is kept back and shown only if it fails.
 */
export function ensureBuild(root: string, distDir: string, log?: (line: string) => void): void {
  ensureCurrent(join(root, `${distDir}.building`), {
    stale: () => staleBuild(root, distDir),
    build: (reason) => {
      log?.(`${reason}: running next build (about a minute)`);
      nextBuild(root, distDir, log);
    },
    log,
  });
}

function nextBuild(root: string, distDir: string, log?: (line: string) => void): void {
  const env: NodeJS.ProcessEnv = { ...process.env, NEXT_TELEMETRY_DISABLED: '1', NEXT_DIST_DIR: distDir, NODE_ENV: 'production' };
  delete env.NODE_OPTIONS; // a caller's flags (a test runner's loaders, a heap cap) are not the build's
  const build = spawnSync(process.execPath, ['node_modules/next/dist/bin/next', 'build'], {
    cwd: root,
    env,
    ...(log ? { stdio: ['ignore', 2, 2] as const } : { encoding: 'utf8' as const }),
  });
  if (build.status !== 0) throw new Error(`next build into ${distDir} failed${log ? '' : `:\n${build.stdout}\n${build.stderr}`}`);
}
