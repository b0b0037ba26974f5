import type { z } from 'zod';
import { clientAddress, forwardedHeadersTrusted } from '../auth/client-address';
import type { Connection } from '../auth/connection';
import { getConfig } from '../config';
import { getSqlDb } from '../db/client';
import type { BillingRequest, Charge, Replay } from '../domain/billing/reservation';
import { reserve, type OpenReservation } from '../domain/billing/reserve';
import { ApiError, isApiError } from '../domain/errors';
import type { StreamDeltaSink } from '../domain/generation/text-and-code';
import { requestFingerprint } from '../domain/billing/idempotency-store';
import { authenticateKey, type AuthenticatedKey } from '../domain/keys/authenticate-key';
import { displayPrefix } from '../domain/keys/key-secret';
import type { Operation } from '../domain/operations';
import { noteFailedAuthentication, refuseFailingAddress } from '../domain/rate-limit/auth-failures';
import { consumeRequest, rateLimitHeaders } from '../domain/rate-limit/request-rate';
import { zodValidationError } from '../domain/zod-issues';
import { observeStreamCharged } from '../observability/observe-request';
import { noteError, noteKey, type RequestRecord } from '../observability/request-record';
import { traceStep } from '../observability/tracing';
import { acceptsEventStream, doneEventResponse, endingOf, eventStreamResponse, replayedEventsResponse } from './event-stream';
import { jsonChannel, runAndSettle } from './answer-lifecycle';
import { streamChannel } from './stream-channel';
import { publicOrigin } from '../auth/forwarded';
import { readIdempotencyKey, requireJsonContentType } from './headers';
import { parseJsonObject, readBodyBytes } from './read-json-body';
import { POST_ERRORS, type RouteCall, type RouteDoc, type RouteSpec } from './route-doc';
import { newRequestId } from './request-id';
import type { Outcome, RouteContext, RunContext } from './route-context';
import { jsonResponse, jsonText, toApiError, toErrorResponse } from './responses';

// Every /v1 request passes these steps in the order of CONTRACT.md §3; the first failure
// wins and nothing reaches an engine before the units are held. Billing (steps 8 to 10, and
// settling or abandoning after step 11) is the domain's use case in domain/billing.

export type { Charge };

/** The route's OpenAPI operation (see route-doc.ts); the method and the request schema come from the spec. */
type OperationDoc = Pick<RouteDoc, 'path' | 'operationId' | 'summary' | 'pathParams' | 'response' | 'eventStream' | 'countedErrors'>;

export interface PostRouteSpec<S extends z.ZodType, P> extends OperationDoc {
  /** Step 2: the operation the key's package must sell, or a rule for routes that are not operations. */
  scope: Operation | ((key: AuthenticatedKey) => boolean);
  /** The route's name in logs and metrics when `scope` is a rule (else the operation it sells). */
  operation?: string;
  schema: S;
  /** Step 7, after the schema: package settings and referenced resources. */
  prepare: (body: z.infer<S>, ctx: RouteContext) => Promise<P> | P;
  /** Step 10: the units to hold; routes that charge nothing omit it. */
  charge?: (prepared: P, ctx: RouteContext) => Charge;
  run: (prepared: P, ctx: RunContext) => Promise<Outcome>;
  /**
   * The same operation answered as server-sent events when the request's Accept asks for
   * text/event-stream (event-stream.ts): each piece goes to `onDelta` as it is produced. Routes
   * without it answer JSON whatever the Accept header says.
   */
  stream?: (prepared: P, ctx: RunContext, onDelta: StreamDeltaSink) => Promise<Extract<Outcome, { kind: 'generation' }>>;
}

/** Step 1, after the client address's failed authentications (refused without any query): 401. */
async function authenticate(request: Request, connection: Connection | undefined): Promise<AuthenticatedKey> {
  const address = clientAddress(connection, request.headers);
  refuseFailingAddress(address, getConfig().AUTH_FAILURES_PER_MINUTE);
  try {
    return await traceStep('authenticate', () => authenticateKey(getSqlDb(), request.headers.get('authorization')));
  } catch (error) {
    // Past the shared count (REDIS_URL), the failure is answered as the refusal it would meet next.
    if (isApiError(error) && error.code === 'invalid_api_key') throw (await noteFailedAuthentication(address)) ?? error;
    throw error;
  }
}

/** Step 1 and what every later step is given: the key, the request's id, its parameters and public origin. */
export async function routeContext(request: Request, requestId: string, call: RouteCall): Promise<RouteContext> {
  const key = await authenticate(request, call.connection);
  const secret = request.headers.get('authorization')?.slice(7).trim() ?? '';
  noteKey(call.record, { keyId: key.id, keyPrefix: displayPrefix(secret), packageSlug: key.packageSlug });
  const origin = publicOrigin(request, getConfig().PUBLIC_BASE_URL, forwardedHeadersTrusted(call.connection));
  return { request, requestId, key, params: call.params, origin, record: call.record };
}

function allowed(scope: PostRouteSpec<z.ZodType, unknown>['scope'], key: AuthenticatedKey): boolean {
  return typeof scope === 'function' ? scope(key) : Boolean(key.operations[scope]);
}

/** A POST route with its own steps, which a surface translating its requests runs too (server/http/openai). */
export type PostRoute<S extends z.ZodType, P> = RouteSpec & { steps: PostRouteSpec<S, P> };

export function definePostRoute<S extends z.ZodType, P>(spec: PostRouteSpec<S, P>): PostRoute<S, P> {
  const { path, operationId, summary, pathParams, response, eventStream, schema, scope, countedErrors } = spec;
  const operation = spec.operation ?? (typeof scope === 'string' ? scope : undefined);
  if (operation === undefined) throw new Error(`${path}: a route whose scope is a rule names its operation`);
  const route: RouteDoc = {
    method: 'POST',
    path,
    operationId,
    operation,
    summary,
    pathParams,
    response,
    eventStream,
    request: schema,
    errors: POST_ERRORS,
    countedErrors,
  };
  async function handle(request: Request, call: RouteCall): Promise<Response> {
    const requestId = newRequestId();
    let reservation: OpenReservation | undefined;
    try {
      const ctx = await routeContext(request, requestId, call); // 1. 401
      const { json, body, idempotencyKey } = await readRequest(spec, ctx); // 2. to 7.
      const prepared = await spec.prepare(body, ctx);
      const billing = billingRequest(ctx, idempotencyKey, json, spec.charge?.(prepared, ctx));
      const reserved = await traceStep('reserve', () => reserve(getSqlDb(), billing)); // 8. to 10.
      const streamed = spec.stream !== undefined && acceptsEventStream(request);
      if (reserved.kind === 'replay') return replayResponse(reserved, requestId, streamed, call.record);
      reservation = reserved.reservation;
      return await answer(spec, prepared, ctx, reservation, streamed); // 11. and settling
    } catch (error) {
      await reservation?.abandon();
      return toErrorResponse(error, requestId, call.record, reservation && rateLimitHeaders(reservation.rate));
    }
  }
  return { doc: route, handle, steps: spec };
}

/** Steps 2 to 7: scope 403, content type 415, Idempotency-Key 400, size 413, JSON 400, schema 422. */
async function readRequest<S extends z.ZodType, P>(
  spec: PostRouteSpec<S, P>,
  ctx: RouteContext,
): Promise<{ json: Record<string, unknown>; body: z.infer<S>; idempotencyKey: string }> {
  if (!allowed(spec.scope as PostRouteSpec<z.ZodType, unknown>['scope'], ctx.key)) throw new ApiError('forbidden');
  requireJsonContentType(ctx.request);
  const idempotencyKey = readIdempotencyKey(ctx.request);
  const json = parseJsonObject(await readBodyBytes(ctx.request));
  const parsed = spec.schema.safeParse(json);
  if (!parsed.success) throw zodValidationError(parsed.error, json);
  return { json, body: parsed.data, idempotencyKey };
}

/** What billing needs to know of the request; `/v1/text/generate/` shares one scope with `/v1/text/generate`. */
function billingRequest(ctx: RouteContext, idempotencyKey: string, json: unknown, charge: Charge | undefined): BillingRequest {
  const path = new URL(ctx.request.url).pathname.replace(/\/+$/, '');
  const scope = { apiKeyId: ctx.key.id, method: 'POST', path, key: idempotencyKey };
  return { key: ctx.key, requestId: ctx.requestId, scope, fingerprint: requestFingerprint('POST', path, json), charge };
}

/**
 * Step 11 and its settling (answer-lifecycle.ts), answered as JSON once settled or as an event
 * stream (stream-channel.ts) that begins at once, every check having passed and the units held.
 */
async function answer<P>(
  spec: PostRouteSpec<z.ZodType, P>,
  prepared: P,
  ctx: RouteContext,
  reservation: OpenReservation,
  streamed: boolean,
): Promise<Response> {
  const headers = rateLimitHeaders(reservation.rate);
  if (!streamed) {
    const settled = await runAndSettle(ctx, reservation, jsonChannel(spec.run, prepared));
    return jsonText(settled.status, settled.body, ctx.requestId, headers);
  }
  return eventStreamResponse(ctx.requestId, headers, ctx.request.signal, (disconnected, writeDelta) => {
    const settling = runAndSettle(ctx, reservation, streamChannel(spec.stream!, prepared, disconnected, writeDelta, reservation));
    ctx.record.streamSettled = settling;
    return settling
      .then((settled) => {
        observeStreamCharged(ctx.record);
        if (settled.interrupted) throw settled.interrupted; // charged: the stream ends with output_interrupted
        return settled.body;
      })
      .catch((error: unknown) => {
        // Its `error` event's code is the line's and the metric's, as an error answer's is (the status stays 200).
        const apiError = toApiError(error, ctx.requestId);
        noteError(ctx.record, apiError);
        throw apiError;
      });
  });
}

/**
 * A stored answer again; to a retry that asks for a stream, a stored generation as one `done` event,
 * or a call charged without `done` as the events it ended with (its deltas and `output_interrupted`).
 */
function replayResponse(replay: Replay, requestId: string, streamed: boolean, record: RequestRecord): Response {
  const headers = { 'Idempotent-Replayed': 'true' };
  if (streamed && replay.events !== undefined) {
    // Its `error` event again: the line's and the metric's code, as the first answer's was.
    const ending = endingOf(replay.events);
    if (ending) noteError(record, ending);
    return replayedEventsResponse(replay.events, requestId, headers);
  }
  if (streamed && replay.status === 200) return doneEventResponse(replay.body, requestId, headers);
  return jsonText(replay.status, replay.body, requestId, headers);
}

export interface GetRouteSpec extends OperationDoc {
  /** The route's name in logs and metrics (`jobs.get`). */
  operation: string;
  /** The statuses of its error answers (see RouteDoc.errors). */
  errors: number[];
  /** Counts against the key's requests per minute (429 past it), with the rate headers on the answer. */
  rateLimited?: boolean;
  handle: (ctx: RouteContext) => Promise<unknown>;
}

export function defineGetRoute(spec: GetRouteSpec): RouteSpec {
  const { path, operationId, operation, summary, pathParams, response, errors, rateLimited } = spec;
  const route: RouteDoc = { method: 'GET', path, operationId, operation, summary, pathParams, response, errors, rateLimited };
  async function handle(request: Request, call: RouteCall): Promise<Response> {
    const requestId = newRequestId();
    let rateHeaders: Record<string, string> | undefined;
    try {
      const ctx = await routeContext(request, requestId, call);
      const rate = spec.rateLimited ? await consumeRequest(getSqlDb(), ctx.key.id, ctx.key.requestsPerMinute) : undefined;
      rateHeaders = rate && rateLimitHeaders(rate);
      return jsonResponse(200, await spec.handle(ctx), requestId, rateHeaders);
    } catch (error) {
      // An answer that took a point says so, a 404 for an unknown job as much as a 200.
      return toErrorResponse(error, requestId, call.record, rateHeaders);
    }
  }
  return { doc: route, handle };
}
