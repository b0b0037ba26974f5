// `npm start`: the whole product in one process. Provides the database (embedded unless
// DATABASE_URL is set), migrates it, seeds the example packages into an empty database,
// builds the app when there is no build of the current code, then serves API and dashboard on PORT.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import next from 'next';
import { CLIENT_ADDRESS_HEADER } from '../server/auth/client-address';
import { REQUEST_PATH_HEADER } from '../server/auth/request-path';
import { getConfig } from '../server/config';
import { leaveStopSignalsToCaller } from '../server/db/embedded-postgres';
import { provideDatabase } from '../server/db/provide-database';
import { markStopping, runShutdownHooks } from '../server/instance/shutdown-hooks';
import { newRequestId } from '../server/http/request-id';
import { ensureLocalSecrets } from '../server/runtime-secrets';
import { ensureBuild } from './lib/ensure-build';
import {
  apiVary,
  dashboardBodyRefusal,
  dropFrameworkHeaders,
  isApiPath,
  normalizeTarget,
  repeatedHeaders,
  routedMethod,
  toOriginForm,
  withoutUnparseableCallbackCookie,
} from './lib/normalize-request';
import {
  answerClientError,
  connectAnswer,
  envelopeAnswer,
  nonPathTargetAnswer,
  rawAnswer,
  type ProtocolAnswer,
} from './lib/protocol-answers';

const log = (line: string) => process.stdout.write(`[wgs] ${line}\n`);

/** Where this process reaches its own listener. */
function loopbackFor(host: string): string {
  if (host === '0.0.0.0') return '127.0.0.1';
  if (host === '::') return '[::1]';
  return host.includes(':') ? `[${host}]` : host;
}

/**
 * Every response carries an X-Request-Id (CONTRACT.md §1), also those the API's routes do not
 * make (pages, /healthz, static files); one the response already has is kept. Set as the head
 * goes out: set before, Next would keep it over the /v1 pipeline's own.
 */
function stampRequestId(res: ServerResponse): void {
  beforeHead(res, () => {
    if (!res.hasHeader('x-request-id')) res.setHeader('X-Request-Id', newRequestId());
  });
}

/** Next says every answer varies on its router's request headers; an API answer does not. */
function dropFrameworkVary(res: ServerResponse): void {
  beforeHead(res, () => {
    const vary = res.getHeader('vary');
    if (vary === undefined) return;
    const kept = apiVary(typeof vary === 'number' ? String(vary) : vary);
    if (kept === undefined) res.removeHeader('vary');
    else res.setHeader('Vary', kept);
  });
}

/** The most of a refused body that is read (and dropped) so that its sender can read the answer. */
const DRAIN_LIMIT_BYTES = 16 * 1024 * 1024;
const DRAIN_LIMIT_MS = 5_000;

/**
 * Answers a refused request once its body has gone by, read and dropped, never kept: closing
 * while the client still sends would cut it off mid-write (EPIPE) before it reads the answer. A
 * body past DRAIN_LIMIT_BYTES, or one still arriving after DRAIN_LIMIT_MS, is not waited for.
 */
function answerAfterDraining(req: IncomingMessage, send: () => void): void {
  let sent = false;
  const once = () => {
    if (sent) return;
    sent = true;
    clearTimeout(timer);
    send();
  };
  const timer = setTimeout(once, DRAIN_LIMIT_MS);
  let received = 0;
  req.on('data', (chunk: Buffer) => {
    received += chunk.length;
    if (received > DRAIN_LIMIT_BYTES) once();
  });
  req.once('end', once);
  req.once('error', once);
  if (Number(req.headers['content-length'] ?? 0) > DRAIN_LIMIT_BYTES || req.complete) once();
}

/** Runs `fix` as the head goes out, after Next and the route have set their headers. */
function beforeHead(res: ServerResponse, fix: () => void): void {
  const writeHead = res.writeHead;
  res.writeHead = function (this: ServerResponse, ...args: Parameters<typeof writeHead>) {
    fix();
    return writeHead.apply(this, args);
  } as typeof writeHead;
}

/** How long a stop waits for requests in flight (a paid request that is cut waits for its leases). */
const SHUTDOWN_GRACE_MS = 25_000;

/**
 * Stops taking connections and lets the requests in flight finish, up to `graceMs`, closing each
 * keep-alive connection as soon as it is idle; then cuts whatever is left.
 */
async function drain(server: Server, graceMs: number): Promise<void> {
  const closed = new Promise<void>((resolve) => server.close(() => resolve()));
  server.closeIdleConnections();
  const idle = setInterval(() => server.closeIdleConnections(), 100);
  const cut = setTimeout(() => server.closeAllConnections(), graceMs);
  await closed;
  clearInterval(idle);
  clearTimeout(cut);
}

/** Stopped when the start fails after it (a port in use), so no PostgreSQL is left behind. */
let startedDatabase: { stop(): Promise<void> } | undefined;

async function main(): Promise<void> {
  process.env.NEXT_TELEMETRY_DISABLED = '1';
  const config = getConfig();
  ensureLocalSecrets(config);
  ensureBuild(process.cwd(), process.env.NEXT_DIST_DIR || '.next', log);
  const database = await provideDatabase({ adopt: true, log, beforeStop: runShutdownHooks });
  startedDatabase = database;

  // The app's own bundles are loaded without source maps: keeping every bundle's map in memory
  // costs ~100 MB of heap for stack traces nobody reads in production.
  process.setSourceMapsEnabled(false);
  const app = next({ dev: false, dir: process.cwd(), hostname: config.HOST, port: config.PORT });
  await app.prepare();
  const handle = app.getRequestHandler();
  const answer = (res: ServerResponse, { status, headers, body }: ProtocolAnswer) =>
    res.writeHead(status, status === 204 ? headers : { ...headers, 'Content-Length': Buffer.byteLength(body) }).end(body);
  // Without a Host Node would answer a bare 400 itself; the check below answers in the envelope.
  const server = createServer({ requireHostHeader: false }, (req, res) => {
    stampRequestId(res);
    const repeated = repeatedHeaders(req.rawHeaders);
    if (repeated.host !== undefined || (req.headers.host === undefined && req.httpVersion !== '1.0')) {
      answer(res, envelopeAnswer(400, 'invalid_request', 'An HTTP/1.1 request needs exactly one Host header (RFC 9112, section 3.2).'));
      return;
    }
    const originForm = toOriginForm(req.url ?? '/');
    if (!originForm.target.startsWith('/')) {
      answer(res, nonPathTargetAnswer(req.method ?? '', originForm.target));
      return;
    }
    if (originForm.host) req.headers.host = originForm.host;
    req.url = normalizeTarget(originForm.target);
    if (isApiPath(req.url)) dropFrameworkVary(res);
    const method = routedMethod(req.method ?? 'GET', req.url);
    if (method === undefined) {
      // Outside the API (dashboard pages, sign-in, tRPC) only these methods mean anything.
      res.writeHead(405, { Allow: 'GET, HEAD, POST', 'Cache-Control': 'no-store', 'Content-Type': 'text/plain' }).end('Method Not Allowed');
      return;
    }
    const refusal = dashboardBodyRefusal(req.url, req.headers);
    if (refusal) {
      const reply = envelopeAnswer(refusal.status, refusal.status === 413 ? 'payload_too_large' : 'invalid_request', refusal.message, {
        Connection: 'close',
      });
      answerAfterDraining(req, () => answer(res, reply));
      return;
    }
    req.method = method;
    dropFrameworkHeaders(req.url, req.headers);
    const cookie = withoutUnparseableCallbackCookie(req.headers.cookie);
    if (cookie !== undefined) req.headers.cookie = cookie;
    Object.assign(req.headers, repeated, { [CLIENT_ADDRESS_HEADER]: req.socket.remoteAddress ?? '', [REQUEST_PATH_HEADER]: req.url });
    void handle(req, res);
  });
  server.on('clientError', answerClientError);
  server.on('connect', (_req, socket: Duplex & { setTimeout(ms: number, callback: () => void): void }) => {
    // Node hands the tunnel's socket over paused and unwatched: read and drop whatever follows,
    // survive a reset, and make sure it closes even if the client never does.
    socket.on('error', () => socket.destroy());
    socket.setTimeout(5_000, () => socket.destroy());
    socket.resume();
    socket.end(rawAnswer(connectAnswer()));
  });
  server.keepAliveTimeout = 65_000;
  server.maxConnections = config.MAX_CONNECTIONS; // past it Node closes a new connection at accept
  // A port in use or a HOST that does not resolve stops the process (a supervisor restarts it).
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(config.PORT, config.HOST, () => {
      server.off('error', reject);
      resolve();
    });
  });
  // Next prepares the app (instrumentation.ts) on its first request: make that request now, so
  // the example packages, sweeps and workers are in place before anyone is told it is ready.
  const ready = await fetch(`http://${loopbackFor(config.HOST)}:${config.PORT}/healthz`);
  if (!ready.ok) throw new Error(`the app answered its first request with ${ready.status}`);
  // Next listened for protocol upgrades on that first request, to proxy websocket rewrites (this
  // app has none), and drops every other upgrade's connection. Without a listener Node serves a
  // request that offers an upgrade (`curl --http2`: Upgrade: h2c) as plain HTTP/1.1, which
  // RFC 9110 §7.8 allows.
  server.removeAllListeners('upgrade');
  log(`serving on http://localhost:${config.PORT} (API under /v1, dashboard at /)`);

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) {
      log(`${signal} again: cutting the requests still running, exiting in 5 s at most`);
      server.closeAllConnections();
      setTimeout(() => process.exit(1), 5_000).unref();
      return;
    }
    stopping = true;
    markStopping();
    log(`${signal}: shutting down; requests in flight get ${SHUTDOWN_GRACE_MS / 1000} s to finish`);
    // A database that hangs must not keep the process from ending: the stop has a deadline.
    setTimeout(() => {
      log('shutdown did not finish in time: exiting');
      process.exit(1);
    }, SHUTDOWN_GRACE_MS + 30_000).unref();
    await drain(server, SHUTDOWN_GRACE_MS);
    await runShutdownHooks(); // video job workers finish their jobs, then the app's pool closes
    await database.stop().catch(() => {});
    process.exit(0);
  };
  leaveStopSignalsToCaller();
  process.on('SIGINT', () => void stop('SIGINT'));
  process.on('SIGTERM', () => void stop('SIGTERM'));
}

main().catch(async (error: unknown) => {
  process.stderr.write(`[wgs] failed to start: ${error instanceof Error ? error.message : String(error)}\n`);
  await startedDatabase?.stop().catch(() => {});
  process.exit(1);
});
