import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

// A fake provider on 127.0.0.1 (port 0) speaking one provider's wire protocol, given as a
// responder per request. A mode makes every call fail the way real providers do: an HTTP
// error (with diagnostic text that must never reach a customer), a hang, or a malformed answer;
// `job-failed` and `job-pending` are left to the responder: an asynchronous job (a video) reported
// failed, or still in progress at every poll, in the provider's own terms.

export const FAKE_PROVIDER_DIAGNOSTIC = 'FAKE-PROVIDER-DIAGNOSTIC: replica 9 on fire';

export type FakeProviderMode =
  | { kind: 'ok' }
  | { kind: 'status'; status: number }
  | { kind: 'hang' }
  | { kind: 'garbage' }
  | { kind: 'job-failed' }
  | { kind: 'job-pending' };

export interface FakeRequest {
  method: string;
  path: string;
  query: URLSearchParams;
  headers: IncomingHttpHeaders;
  body: Buffer;
  /** The body parsed as JSON (undefined when it is not JSON). */
  json: any; // eslint-disable-line @typescript-eslint/no-explicit-any
}

export interface FakeReply {
  status?: number;
  json?: unknown;
  bytes?: Buffer;
  contentType?: string;
}

export type Responder = (
  request: FakeRequest,
  origin: string,
  mode: FakeProviderMode,
) => FakeReply | undefined | Promise<FakeReply | undefined>;

export interface FakeProviderServer {
  /** e.g. http://127.0.0.1:41234 */
  origin: string;
  port: number;
  requests: FakeRequest[];
  setMode(mode: FakeProviderMode): void;
  reset(): void;
  close(): Promise<void>;
}

function parseJson(body: Buffer): unknown {
  try {
    return JSON.parse(body.toString('utf8'));
  } catch {
    return undefined;
  }
}

function send(response: ServerResponse, reply: FakeReply): void {
  const body = reply.bytes ?? Buffer.from(JSON.stringify(reply.json ?? {}));
  response.writeHead(reply.status ?? 200, {
    'content-type': reply.contentType ?? 'application/json',
    'content-length': String(body.length),
  });
  response.end(body);
}

export async function startFakeProviderServer(respond: Responder): Promise<FakeProviderServer> {
  let mode: FakeProviderMode = { kind: 'ok' };
  const requests: FakeRequest[] = [];
  const sockets = new Set<Socket>();
  let origin = '';

  const server: Server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const url = new URL(req.url ?? '/', 'http://x');
    const body = Buffer.concat(chunks);
    const request: FakeRequest = {
      method: req.method ?? 'GET',
      path: url.pathname,
      query: url.searchParams,
      headers: req.headers,
      body,
      json: parseJson(body),
    };
    requests.push(request);
    // Downloads of media the fake itself answered with stay up whatever the mode.
    const isDownload = url.pathname.includes('/files/');
    if (!isDownload && mode.kind === 'status') {
      send(res, { status: mode.status, json: { error: { message: FAKE_PROVIDER_DIAGNOSTIC, type: 'server_error', code: 'fake' } } });
      return;
    }
    if (!isDownload && mode.kind === 'hang') return; // closed by the client's timeout or by close()
    if (!isDownload && mode.kind === 'garbage') {
      send(res, { bytes: Buffer.from(`{"result": [ {{{ ${FAKE_PROVIDER_DIAGNOSTIC}`) });
      return;
    }
    const reply = await respond(request, origin, mode);
    if (!reply) {
      send(res, { status: 404, json: { error: { message: `the fake has no route ${req.method} ${url.pathname}` } } });
      return;
    }
    send(res, reply);
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  origin = `http://127.0.0.1:${port}`;
  return {
    origin,
    port,
    requests,
    setMode(next) {
      mode = next;
    },
    reset() {
      mode = { kind: 'ok' };
      requests.length = 0;
    },
    close() {
      for (const socket of sockets) socket.destroy();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
