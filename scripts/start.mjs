// `npm start`: builds what is stale (the server package into dist/, then Next into .next, each only
// when its sources changed: scripts/lib/ensure-build.ts), then runs `npm start`'s server from
// dist/ (scripts/serve.ts, compiled), never from source: Next loads the same compiled server
// package, so both share every module of the server in this one process. Plain JavaScript, so
// the process that serves runs on plain node as production does: only the build check is loaded
// through tsx (scoped to that import), where `node --import tsx` put tsx's loader in front of
// every module Next and the server load (about 1 CPU-s more per start, measured).
const { tsImport } = await import('tsx/esm/api');
const { ensureBuilds } = await tsImport('./lib/server-bundle.ts', import.meta.url);
ensureBuilds(process.cwd(), process.env.NEXT_DIST_DIR || '.next', (line) => process.stdout.write(`[wgs] ${line}\n`));
await import(new URL('../dist/serve.js', import.meta.url).href);
