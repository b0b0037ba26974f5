import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';

// `npm start` serves the build of the code it is started from: it builds when there is no build,
// or when a file the build is made from changed since (after a `git pull`, an edit). Processes
// started together (several instances, tests) build once: the others wait for that build.

/** What `next build` reads: the app's folders and the files that configure it. */
const SOURCES = ['app', 'server', 'components', 'instrumentation.ts', 'next.config.mjs', 'tsconfig.json', 'package.json', 'package-lock.json'];
const LOCK_STALE_MS = 10 * 60_000;

function newestChange(path: string): number {
  if (!existsSync(path)) return 0;
  const info = statSync(path);
  if (!info.isDirectory()) return info.mtimeMs;
  let newest = info.mtimeMs; // a deleted file shows as its folder's change
  for (const entry of readdirSync(path)) newest = Math.max(newest, newestChange(join(path, entry)));
  return newest;
}

/** Why the build must be made, or undefined when the one in `distDir` is current. */
export function staleBuild(root: string, distDir: string): string | undefined {
  const buildId = join(root, distDir, 'BUILD_ID');
  if (!existsSync(buildId)) return 'no build found';
  const builtAt = statSync(buildId).mtimeMs;
  return SOURCES.some((source) => newestChange(join(root, source)) > builtAt) ? 'the code changed since the last build' : undefined;
}

function sleep(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

/**
 * Builds when needed, one process at a time (a lock folder next to the build). `log` gets a line
 * saying why; without it the build's own output is kept back and shown only if it fails.
 */
export function ensureBuild(root: string, distDir: string, log?: (line: string) => void): void {
  if (!staleBuild(root, distDir)) return;
  const lock = join(root, `${distDir}.building`);
  for (;;) {
    try {
      mkdirSync(lock);
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      if (Date.now() - statSync(lock).mtimeMs > LOCK_STALE_MS) rmSync(lock, { recursive: true, force: true }); // its builder died
      else sleep(500);
    }
  }
  try {
    const reason = staleBuild(root, distDir); // another process may have built it meanwhile
    if (!reason) return;
    log?.(`${reason}: running next build (about a minute)`);
    const env: NodeJS.ProcessEnv = { ...process.env, NEXT_TELEMETRY_DISABLED: '1', NEXT_DIST_DIR: distDir, NODE_ENV: 'production' };
    delete env.NODE_OPTIONS; // a caller's flags (a test runner's loaders, a heap cap) are not the build's
    const build = spawnSync(process.execPath, ['node_modules/next/dist/bin/next', 'build'], {
      cwd: root,
      env,
      ...(log ? { stdio: ['ignore', 2, 2] as const } : { encoding: 'utf8' as const }),
    });
    if (build.status !== 0) throw new Error(`next build into ${distDir} failed${log ? '' : `:\n${build.stdout}\n${build.stderr}`}`);
  } finally {
    rmSync(lock, { recursive: true, force: true });
  }
}
