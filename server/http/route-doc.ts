import type { z } from 'zod';

// What a /v1 route says about itself: method, path, operation id, request and response schemas
// and the statuses of its error answers. The route specs carry it, server/http/routes/registry.ts
// lists it, and the OpenAPI document is generated from that list.

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
}

/** Every error a POST can give, in CONTRACT.md §3's order and beyond. */
export const POST_ERRORS = [400, 401, 402, 403, 404, 409, 413, 415, 422, 429, 500, 503];

/** A handler that carries its route's description. */
export type DocumentedHandler<H> = H & { route: RouteDoc };

export function documented<H extends object>(handler: H, route: RouteDoc): DocumentedHandler<H> {
  return Object.assign(handler, { route });
}
