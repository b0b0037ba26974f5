import { STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import type { ErrorCode } from '../../domain/errors';
import { errorEnvelope } from '../error-envelope';
import { newRequestId } from '../request-id';

// Answers `npm start` gives itself, before Next sees a request: what Node's HTTP parser refuses
// (bad framing, headers too large), targets that name no path (`OPTIONS *`) and CONNECT. Like
// every answer of the API they carry X-Request-Id and Cache-Control: no-store and the error
// envelope of interface-v1.md §7, instead of Node's bare status line or a dropped connection.

export interface ProtocolAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

export function envelopeAnswer(status: number, code: ErrorCode, message: string, extra: Record<string, string> = {}): ProtocolAnswer {
  const requestId = newRequestId();
  return {
    status,
    headers: { 'Content-Type': 'application/json; charset=utf-8', 'X-Request-Id': requestId, 'Cache-Control': 'no-store', ...extra },
    body: JSON.stringify(errorEnvelope(code, message, requestId)),
  };
}

/** A Fetch Response (a surface's error answer) as one of this server's answers, with `extra` headers. */
export async function fromResponse(response: Response, extra: Record<string, string> = {}): Promise<ProtocolAnswer> {
  return { status: response.status, headers: { ...Object.fromEntries(response.headers), ...extra }, body: await response.text() };
}

/** The answer as bytes, for a socket no ServerResponse owns; the connection is closed after it. */
export function rawAnswer({ status, headers, body }: ProtocolAnswer): string {
  const lines = Object.entries({ ...headers, 'Content-Length': String(Buffer.byteLength(body)), Connection: 'close' }).map(
    ([name, value]) => `${name}: ${value}\r\n`,
  );
  return `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? ''}\r\n${lines.join('')}\r\n${body}`;
}

/** Node's own statuses for what its parser refuses (lib/_http_server.js), in the envelope. */
export function clientErrorAnswer(code: string | undefined): ProtocolAnswer {
  switch (code) {
    case 'HPE_HEADER_OVERFLOW':
      // 400, not Node's 431: the interface's statuses are the API's, and CONTRACT.md §2 gives
      // `invalid_request` to 400 (RFC 6585 lets a server answer 400 here).
      return envelopeAnswer(400, 'invalid_request', 'The request headers are too large.');
    case 'HPE_CHUNK_EXTENSIONS_OVERFLOW':
      return envelopeAnswer(413, 'payload_too_large', 'The chunk extensions are too large.');
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return envelopeAnswer(408, 'invalid_request', 'The request was not received in time.');
    default:
      return envelopeAnswer(400, 'invalid_request', 'The request is not well-formed HTTP/1.1.');
  }
}

/** Answers a request Node's parser refused, unless a response is already under way on the socket. */
export function answerClientError(error: Error & { code?: string }, socket: Duplex): void {
  const inFlight = (socket as Duplex & { _httpMessage?: { headersSent?: boolean } })._httpMessage;
  if (error.code !== 'ECONNRESET' && socket.writable && !inFlight?.headersSent) socket.end(rawAnswer(clientErrorAnswer(error.code)));
  socket.destroy(error);
}

/** Every method some path of the service accepts (PUT: the local store's upload URLs). */
const SERVER_METHODS = 'GET, HEAD, POST, PUT';

/**
 * A target that is neither a path nor an absolute URL. `OPTIONS *` asks about the server as a
 * whole (RFC 9110 §9.3.7): 204 with the methods it serves. Anything else names no resource: 400.
 */
export function nonPathTargetAnswer(method: string, target: string): ProtocolAnswer {
  if (method === 'OPTIONS' && target === '*') {
    return { status: 204, headers: { Allow: SERVER_METHODS, 'X-Request-Id': newRequestId(), 'Cache-Control': 'no-store' }, body: '' };
  }
  return envelopeAnswer(400, 'invalid_request', 'The request target must be a path such as /v1/text/generate.');
}

/** CONNECT (a tunnel through a proxy): this is no proxy. */
export const connectAnswer = (): ProtocolAnswer =>
  envelopeAnswer(405, 'method_not_allowed', 'CONNECT is not supported: this server is not a proxy.', { Allow: SERVER_METHODS });
