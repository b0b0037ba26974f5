import type { z } from 'zod';
import type { Connection } from '../auth/connection';
import type { RequestRecord } from '../observability/request-record';

// What a /v1 route says about itself: method, path, operation id, request and response schemas
// and the statuses of its error answers, and the handler that serves it. The route specs carry
// both, the surface's table (server/surfaces/v1.ts) lists them, and its app, its OpenAPI document
// and the route label of logs, metrics and traces all come from that list.

export interface RouteDoc {
  method: 'GET' | 'POST';
  /** In OpenAPI's form: `/v1/jobs/{jobId}`. */
  path: string;
  operationId: string;
  /**
   * What logs, metrics, traces and the dashboard's refusals call a request of this route: the
   * operation a package sells (`text.generate`), else the route's own name (`jobs.get`).
   */
  operation: string;
  summary: string;
  /** Answered without an API key. */
  public?: boolean;
  /** A GET that counts against the key's requests per minute (its answer carries the rate headers). */
  rateLimited?: boolean;
  /** The JSON body of a POST. */
  request?: z.ZodType;
  pathParams?: z.ZodObject;
  response: { status: 200 | 201 | 202; schema: z.ZodType; description: string };
  /** The same answer as server-sent events, for a request whose Accept asks for text/event-stream. */
  eventStream?: { event: z.ZodType; description: string };
  /**
   * The statuses of the error answers this operation can give. Never 405: a method that answers
   * the route is never refused by it (405 belongs to the route's other methods).
   */
  errors: number[];
  /**
   * Error statuses that, on this route, come after the rate step too and carry its count, beyond
   * those that do on every route (an upload's 413 for what its key holds in storage).
   */
  countedErrors?: number[];
}

/** Every error a POST can give, in CONTRACT.md §3's order and beyond. */
export const POST_ERRORS = [400, 401, 402, 403, 404, 409, 413, 415, 422, 429, 500, 503];

/** What the surface's app hands a route's handler beside the request. */
export interface RouteCall {
  /** The path's parameters (`{jobId}`), decoded. */
  params: Record<string, string>;
  /** The connection, when `npm start`'s server accepted it (server/auth/connection.ts). */
  connection: Connection | undefined;
  /** What the request learns on its way, for its log line and metrics. */
  record: RequestRecord;
}

export type RouteHandler = (request: Request, call: RouteCall) => Promise<Response>;

/** One route of a surface: what it says about itself, and its handler. */
export interface RouteSpec {
  doc: RouteDoc;
  handle: RouteHandler;
}
