// `npm start`: builds what is stale (the server package into dist/, then Next into .next, each only
// when its sources changed: scripts/lib/ensure-build.ts), then runs `npm start`'s server from
// dist/ (scripts/serve.ts, compiled), never from source: Next loads the same compiled server
// package, so both share every module of the server in this one process. Plain JavaScript, so
// the process that serves runs on plain node as production does: only the build check is loaded
// through tsx, whose loader is then unregistered (tsImport keeps it, and source maps on, for every
// module Next and the server load after it: 0.1-0.2 CPU-s per start here), where `node --import
// tsx` put tsx's loader in front of all of them (about 1 CPU-s more per start).
import { restartWithAsyncContextFrame } from './lib/async-context-frame.mjs';

restartWithAsyncContextFrame();
await refuseBusyPort();
const { register } = await import('tsx/esm/api');
const tsx = register({ namespace: 'wgs-build-check' });
const { ensureBuilds } = await tsx.import('./lib/server-bundle.ts', import.meta.url);
await tsx.unregister();
ensureBuilds(process.cwd(), process.env.NEXT_DIST_DIR || '.next', (line) => process.stdout.write(`[wgs] ${line}\n`));
await import(new URL('../dist/serve.js', import.meta.url).href);

/**
 * A PORT another process listens on is said at once, not after a first build and the database's
 * start (minutes). A PORT that is no port is left to the configuration's own check.
 */
async function refuseBusyPort() {
  const written = process.env.PORT?.trim() || '3000';
  const port = Number(written);
  if (!/^\d+$/.test(written) || port < 1 || port > 65535) return;
  const host = process.env.HOST || '0.0.0.0';
  const { createServer } = await import('node:net');
  const error = await new Promise((resolve) => {
    const probe = createServer();
    probe.once('error', resolve);
    probe.listen(port, host, () => probe.close(() => resolve(undefined)));
  });
  if (error?.code !== 'EADDRINUSE') return;
  process.stderr.write(`[wgs] failed to start: ${host}:${port} is in use by another process; stop it or set PORT to another port\n`);
  process.exit(1);
}
