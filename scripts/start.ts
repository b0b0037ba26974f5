// `npm start`: builds what is stale (the server package into dist/, then Next into .next, each only
// when its sources changed: scripts/lib/ensure-build.ts), then runs `npm start`'s server from
// dist/ (scripts/serve.ts, compiled), never from this source: Next loads the same compiled
// server package, so both share every module of the server in this one process. With
// --production (`npm run start:production`, the container's CMD: this file compiled, dist/start.js)
// nothing is built; a missing build stops the start (server/instance/production-mode.ts).
const production = process.argv.includes('--production');
if (!production) {
  const { ensureBuilds } = await import('./lib/server-bundle');
  ensureBuilds(process.cwd(), process.env.NEXT_DIST_DIR || '.next', (line) => process.stdout.write(`[wgs] ${line}\n`));
}
await import(new URL('../dist/serve.js', import.meta.url).href);
