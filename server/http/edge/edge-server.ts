import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { servingConnection } from '../../auth/connection';
import { ApiError } from '../../domain/errors';
import { answeringPage } from '../page-answer';
import { newRequestId } from '../request-id';
import { isStopping } from '../../lifecycle/shutdown-hooks';
import {
  apiVary,
  dashboardBodyRefusal,
  dropFrameworkHeaders,
  normalizeTarget,
  repeatedHeaders,
  routedMethod,
  toOriginForm,
  unsupportedTransferCoding,
  withoutUnparseableCallbackCookie,
} from './normalize-request';
import type { DirectDispatch } from './direct-dispatch';
import {
  answerClientError,
  connectAnswer,
  envelopeAnswer,
  fromResponse,
  nonPathTargetAnswer,
  rawAnswer,
  type ProtocolAnswer,
} from './protocol-answers';
import { answerAfterDraining, awaitContinue, continueIfAwaited } from './refused-body';
import { beforeHead } from '../before-head';

// The HTTP server of `npm start`: what it answers itself and what it rewrites before handing a
// request on, so that every answer of the API comes in the error envelope: the API's surfaces
// (/v1) and the probes to the service's app directly (`routes.app`), everything else to Next
// (`handle`), which serves it inside the connection it came on (server/auth/connection.ts), so
// the handlers it calls know the client without a header anyone could send.

/** Next's request handler (`app.getRequestHandler()`). */
export type NextHandler = (req: IncomingMessage, res: ServerResponse) => Promise<void>;

/** Which requests are the API's, and the app that serves its own paths. */
export interface EdgeRoutes {
  /** Whether a target is one of the API's paths (normalize-request.ts `apiPaths`). */
  isApiPath(target: string): boolean;
  /** The service's app and the targets it serves; without it Next serves them too (`--v1-through-next`). */
  app?: { serves(target: string): boolean; dispatch: DirectDispatch };
  /**
   * A refusal this server answers itself, in the error format of the surface whose path the target
   * is (service-app.ts `answerEdgeError`: OpenAI's under /openai/v1); without it, /v1's envelope.
   */
  answerError?(target: string, error: ApiError): Response;
}

/**
 * Every response carries an X-Request-Id (CONTRACT.md §1), also those the API's routes do not
 * make (pages, /healthz, static files); one the response already has is kept. Set as the head
 * goes out: set before, Next would keep it over the /v1 pipeline's own. Once a stop began, each
 * answer closes its connection, so keep-alive clients move to another instance.
 */
function stampRequestId(res: ServerResponse): void {
  beforeHead(res, () => {
    if (!res.hasHeader('x-request-id')) res.setHeader('X-Request-Id', newRequestId());
    if (isStopping()) res.setHeader('Connection', 'close');
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

/**
 * The host of an absolute-form target stands for the Host header (RFC 9112 §3.2.2), in both forms
 * of the headers: the app's Request reads the raw ones, so URLs it builds (an upload's) named the Host header.
 */
function adoptTargetHost(req: IncomingMessage, host: string): void {
  req.headers.host = host;
  const at = req.rawHeaders.findIndex((name, index) => index % 2 === 0 && name.toLowerCase() === 'host');
  if (at >= 0) req.rawHeaders[at + 1] = host;
  else req.rawHeaders.push('Host', host);
}

function answer(res: ServerResponse, { status, headers, body }: ProtocolAnswer): void {
  res.writeHead(status, status === 204 ? headers : { ...headers, 'Content-Length': Buffer.byteLength(body) }).end(body);
}

/**
 * A 400 this server answers itself, in the error format of the surface whose path `target` is
 * (routes.answerError: OpenAI's under /openai/v1), /v1's envelope elsewhere; after the request's
 * body has gone by, closing the connection, when `drain` (a body it will not read).
 */
function refuse(req: IncomingMessage, res: ServerResponse, routes: EdgeRoutes, target: string, message: string, drain: boolean): void {
  const extra: Record<string, string> = drain ? { Connection: 'close' } : {};
  const reply = routes.answerError
    ? fromResponse(routes.answerError(target, new ApiError('invalid_request', { message })), extra)
    : Promise.resolve(envelopeAnswer(400, 'invalid_request', message, extra));
  const send = () => void reply.then((made) => answer(res, made));
  if (drain) answerAfterDraining(req, send);
  else send();
}

/** Answers or rewrites one request, then hands it to the app or to Next. */
function routeRequest(req: IncomingMessage, res: ServerResponse, handle: NextHandler, routes: EdgeRoutes): void {
  stampRequestId(res);
  // An Upgrade this server never accepts is ignored (RFC 9110 §7.8), but Node's parser reads no
  // further on its connection: a request pipelined behind it would wait unanswered. Closed instead.
  if (req.headers.upgrade !== undefined) res.shouldKeepAlive = false;
  const repeated = repeatedHeaders(req.rawHeaders);
  const originForm = toOriginForm(req.url ?? '/');
  if (repeated.host !== undefined || (req.headers.host === undefined && req.httpVersion !== '1.0')) {
    const message = 'An HTTP/1.1 request needs exactly one Host header (RFC 9112, section 3.2).';
    refuse(req, res, routes, normalizeTarget(originForm.target), message, false);
    return;
  }
  if (!originForm.target.startsWith('/')) {
    answer(res, nonPathTargetAnswer(req.method ?? '', originForm.target));
    return;
  }
  if (originForm.host) adoptTargetHost(req, originForm.host);
  req.url = normalizeTarget(originForm.target);
  const api = routes.isApiPath(req.url);
  const served = routes.app?.serves(req.url) ? routes.app.dispatch : undefined;
  if (!served && api) dropFrameworkVary(res);
  const method = routedMethod(req.method ?? 'GET', api || served !== undefined); // the app answers its probes' 405 too
  if (method === undefined) {
    // Outside the API (dashboard pages, sign-in, tRPC) only these methods mean anything.
    res.writeHead(405, { Allow: 'GET, HEAD, POST', 'Cache-Control': 'no-store', 'Content-Type': 'text/plain' }).end('Method Not Allowed');
    return;
  }
  const coding = unsupportedTransferCoding(req.headers['transfer-encoding']);
  if (coding !== undefined) {
    // 400 as for headers too large: the interface's statuses are the API's (RFC 9112 suggests 501).
    const message = `The transfer coding ${coding} is not supported: send the body as it is, chunked or with a Content-Length.`;
    refuse(req, res, routes, req.url, message, true);
    return;
  }
  const refusal = dashboardBodyRefusal(api, req.headers);
  if (refusal) {
    const reply = envelopeAnswer(refusal.status, refusal.status === 413 ? 'payload_too_large' : 'invalid_request', refusal.message, {
      Connection: 'close',
    });
    answerAfterDraining(req, () => answer(res, reply));
    return;
  }
  req.method = method;
  dropFrameworkHeaders(api, req.headers);
  const cookie = withoutUnparseableCallbackCookie(req.headers.cookie);
  if (cookie !== undefined) req.headers.cookie = cookie;
  Object.assign(req.headers, repeated);
  if (served) return served(req, res); // which invites a body when it reads it (direct-dispatch.ts)
  continueIfAwaited(req, res);
  void servingConnection({ peerAddress: req.socket.remoteAddress, target: req.url }, () => answeringPage(res, () => handle(req, res)));
}

/** How many requests of one connection may wait behind the one being served; more closes it. */
const MAX_PIPELINED = 32;

/** A connection's requests waiting for the one before them to be answered, and whether it was paused for them. */
interface Waiting {
  /** In order; an entry without a request is a refusal that ends the connection (afterInService). */
  queue: { req?: IncomingMessage; run: () => void }[];
  paused: boolean;
  /** The request being served. */
  inService: IncomingMessage;
  /** More than MAX_PIPELINED were sent at once: none of the waiting is served, and the connection closes after the one in service. */
  flooded: boolean;
}
const waiting = new WeakMap<object, Waiting>();

/**
 * Serves a connection's requests one after another. Node emits every pipelined request as soon
 * as it is parsed, and only orders their answers; RFC 9112 §9.3.2 lets a server work on them side
 * by side only when all are safe: a POST sent after another, on one connection, would be refused
 * as the other's still running (409, or 429 for the key's concurrency). While requests wait the
 * connection is not read (Node's own guard counts only answers written, which waiting requests
 * have none of); one that sent more than MAX_PIPELINED at once gets the answer of the request in
 * service, then is closed, the waiting ones never served. Once the connection is gone, a waiting
 * request is never started: its client cannot read the answer, and would pay.
 */
function inTurn(req: IncomingMessage, res: ServerResponse, serve: () => void): void {
  const socket = req.socket;
  const line = waiting.get(socket);
  if (line) {
    socket.pause(); // again if a request served meanwhile resumed it to read its body
    line.paused = true;
    if (line.flooded) return;
    if (line.queue.length >= MAX_PIPELINED) {
      line.flooded = true;
      line.queue.length = 0;
      return;
    }
    line.queue.push({ req, run: serveThenNext });
    return;
  }
  waiting.set(socket, { queue: [], paused: false, inService: req, flooded: false });
  serveThenNext();

  function serveThenNext(): void {
    const line = waiting.get(socket)!; // the same until its last request is answered
    line.inService = req;
    res.once('close', () => {
      const next = socket.destroyed || !socket.writable || line.flooded ? undefined : line.queue.shift();
      if (next) return next.run();
      waiting.delete(socket);
      if (line.flooded) socket.destroy();
      else if (line.paused && !socket.destroyed) socket.resume();
    });
    serve();
  }
}

/**
 * Runs `answer` (a refusal that ends the connection: bytes Node could not parse, a CONNECT) once
 * the requests before it on its connection are answered: written at once, it would be read as the
 * answer of the request in service, which still runs, and is charged. Bytes inside the body of a
 * request (the last one parsed, its body not complete) are that request's own refusal: at once for
 * the request in service, in its turn, in its place, for a waiting one (served, it would wait for
 * a body that never comes).
 */
function afterInService(socket: object, answer: () => void): void {
  const line = waiting.get(socket);
  if (!line) return answer();
  const last = line.queue.at(-1);
  if (last?.req && !last.req.complete) last.run = answer;
  else if (!last && !line.inService.complete) answer();
  else line.queue.push({ run: answer });
}

/**
 * The server that answers in the envelope what Node or Next would not, serves the app's paths with
 * `routes.app` (when given; without it Next routes them too), and passes the rest to `handle`.
 */
export function createEdgeServer(handle: NextHandler, routes: EdgeRoutes): Server {
  const serve = (req: IncomingMessage, res: ServerResponse) => inTurn(req, res, () => routeRequest(req, res, handle, routes));
  // Without a Host Node would answer a bare 400 itself; routeRequest answers in the envelope.
  // Node checks its header and request deadlines every 30 s unless told: a slow client then had up to 90 s, not 60.
  const server = createServer({ requireHostHeader: false, connectionsCheckingInterval: 5_000 }, serve);
  // An expectation other than 100-continue is ignored, as RFC 9110 §10.1.1 allows: Node would
  // answer it 417 itself, outside the envelope, with a status the interface does not have.
  server.on('checkExpectation', serve);
  server.on('checkContinue', (req: IncomingMessage, res: ServerResponse) => {
    awaitContinue(req);
    serve(req, res);
  });
  const refused = new WeakSet<Duplex>();
  server.on('clientError', (error: Error & { code?: string }, socket: Duplex) => {
    if (error.code === 'ECONNRESET') return answerClientError(error, socket);
    if (refused.has(socket)) return; // the parser refuses each chunk after the first it could not parse
    refused.add(socket);
    afterInService(socket, () => answerClientError(error, socket));
  });
  server.on('connect', (_req, socket: Duplex & { setTimeout(ms: number, callback: () => void): void }) => {
    // Node hands the tunnel's socket over paused and unwatched: read and drop whatever follows,
    // survive a reset, and make sure it closes even if the client never does.
    socket.on('error', () => socket.destroy());
    socket.setTimeout(5_000, () => socket.destroy());
    afterInService(socket, () => {
      socket.resume();
      socket.end(rawAnswer(connectAnswer()));
    });
  });
  return server;
}
