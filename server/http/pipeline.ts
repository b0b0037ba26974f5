import type { z } from 'zod';
import { clientAddress, forwardedHeadersTrusted } from '../auth/client-address';
import { getConfig } from '../config';
import { getSqlDb } from '../db/client';
import { abandonRequest } from '../domain/billing/abandon-request';
import { firstEngine, type BillingRequest, type Charge, type Replay, type Reservation } from '../domain/billing/reservation';
import { reserveRequest } from '../domain/billing/reserve-request';
import { settleGeneration, settleResource, usedEngines } from '../domain/billing/settle-request';
import { ApiError, isApiError } from '../domain/errors';
import type { EngineTrace } from '../domain/generation/call-engine';
import type { StreamDeltaSink } from '../domain/generation/text-and-code';
import { markDelivered } from '../domain/billing/mark-delivered';
import { requestFingerprint } from '../domain/idempotency/idempotency-store';
import { authenticateKey, type AuthenticatedKey } from '../domain/keys/authenticate-key';
import { displayPrefix } from '../domain/keys/key-secret';
import type { Operation } from '../domain/operations';
import type { Hold } from '../domain/billing/unit-holds';
import { noteFailedAuthentication, refuseFailingAddress } from '../domain/rate-limit/auth-failures';
import { consumeRequest, rateLimitHeaders } from '../domain/rate-limit/request-rate';
import { zodValidationError } from '../domain/zod-issues';
import { observeStreamCharged } from '../observability/observe-request';
import { noteEngine, noteHeld, noteKey } from '../observability/request-record';
import { traceStep } from '../observability/tracing';
import { acceptsEventStream, doneEventResponse, eventStreamResponse } from './event-stream';
import { firstDeltaGate } from './first-delta-gate';
import { publicOrigin } from '../auth/forwarded';
import { readIdempotencyKey, requireJsonContentType } from './headers';
import { parseJsonObject, readBodyBytes } from './read-json-body';
import { requestDeadline } from './request-deadline';
import { documented, POST_ERRORS, type RouteDoc } from './route-doc';
import type { RouteParams } from './route-methods';
import { newRequestId } from './request-id';
import { jsonResponse, jsonText, toErrorResponse } from './responses';

// Every /v1 request passes these steps in the order of CONTRACT.md §3; the first failure
// wins and nothing reaches an engine before the units are held. Billing (steps 8 to 10, and
// settling or abandoning after step 11) is the domain's use case in domain/billing.

export type { Charge };

export interface RouteContext {
  request: Request;
  requestId: string;
  key: AuthenticatedKey;
  params: Record<string, string>;
  /** Origin for URLs handed to the client (PUBLIC_BASE_URL, else the request's own). */
  origin: string;
}

export interface RunContext extends RouteContext {
  hold?: Hold & { units: number };
  idempotencyRecordId: string;
  /** Aborts before the idempotency lease runs out, so no request outlives its claim. */
  signal: AbortSignal;
  /** Filled by the engine call: the engines tried and the one that answered, for the usage event. */
  engines: EngineTrace;
}

export type Outcome =
  /** HTTP 200 Generation result; the hold is captured with the usage event. */
  | { kind: 'generation'; output: unknown }
  /** Any other success body; `settled` when `run` already stored the response itself. */
  | { kind: 'resource'; status: 200 | 201 | 202; body: unknown; settled?: boolean };

/** The route's OpenAPI operation (see route-doc.ts); the method and the request schema come from the spec. */
type OperationDoc = Pick<RouteDoc, 'path' | 'operationId' | 'summary' | 'pathParams' | 'response' | 'eventStream'>;

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
  stream?: (prepared: P, ctx: RunContext, onDelta: StreamDeltaSink) => Promise<{ kind: 'generation'; output: unknown }>;
}

type NextContext = RouteParams;

/** Step 1, after the client address's failed authentications (refused without any query): 401. */
async function authenticate(request: Request): Promise<AuthenticatedKey> {
  const address = clientAddress(Object.fromEntries(request.headers));
  refuseFailingAddress(address, getConfig().AUTH_FAILURES_PER_MINUTE);
  try {
    return await traceStep('authenticate', () => authenticateKey(getSqlDb(), request.headers.get('authorization')));
  } catch (error) {
    if (isApiError(error) && error.code === 'invalid_api_key') noteFailedAuthentication(address);
    throw error;
  }
}

async function routeContext(request: Request, requestId: string, next?: NextContext): Promise<RouteContext> {
  const key = await authenticate(request);
  const secret = request.headers.get('authorization')?.slice(7).trim() ?? '';
  noteKey(request, { keyId: key.id, keyPrefix: displayPrefix(secret), packageSlug: key.packageSlug });
  const raw = (await next?.params) ?? {};
  const params = Object.fromEntries(Object.entries(raw).map(([name, value]) => [name, Array.isArray(value) ? value.join('/') : value]));
  const origin = publicOrigin(request, getConfig().PUBLIC_BASE_URL, forwardedHeadersTrusted(request.headers));
  return { request, requestId, key, params, origin };
}

function allowed(scope: PostRouteSpec<z.ZodType, unknown>['scope'], key: AuthenticatedKey): boolean {
  return typeof scope === 'function' ? scope(key) : Boolean(key.operations[scope]);
}

export function definePostRoute<S extends z.ZodType, P>(spec: PostRouteSpec<S, P>) {
  const { path, operationId, summary, pathParams, response, eventStream, schema, scope } = spec;
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
  };
  return documented(async function handle(request: Request, next?: NextContext): Promise<Response> {
    const requestId = newRequestId();
    let reservation: Reservation | undefined;
    try {
      const ctx = await routeContext(request, requestId, next); // 1. 401
      const { json, body, idempotencyKey } = await readRequest(spec, ctx); // 2. to 7.
      const prepared = await spec.prepare(body, ctx);
      const billing = billingRequest(ctx, idempotencyKey, json, spec.charge?.(prepared, ctx));
      const reserved = await traceStep('reserve', () => reserveRequest(getSqlDb(), billing)); // 8. to 10.
      const streamed = spec.stream !== undefined && acceptsEventStream(request);
      if (reserved.kind === 'replay') return replayResponse(reserved, requestId, streamed);
      if (streamed) return streamOperation(spec, prepared, ctx, reserved.reservation);
      reservation = reserved.reservation;
      const outcome = await traceStep('run', () => runOperation(spec, prepared, ctx, reservation!)); // 11.
      return await traceStep('settle', () => respond(outcome, reservation!));
    } catch (error) {
      if (reservation) await abandonRequest(getSqlDb(), reservation);
      return toErrorResponse(error, requestId);
    }
  }, route);
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

/** Step 11 under the lease's deadline; an operation that fails gives its units back at once. */
async function runOperation<P>(
  spec: PostRouteSpec<z.ZodType, P>,
  prepared: P,
  ctx: RouteContext,
  reservation: Reservation,
): Promise<Outcome> {
  const deadline = requestDeadline(Math.max(1, getConfig().IDEMPOTENCY_LEASE_SECONDS - 5) * 1000);
  const { charge } = reservation.request;
  noteHeld(ctx.request, charge && { ...charge, engine: firstEngine(charge) });
  try {
    return await spec.run(prepared, {
      ...ctx,
      hold: reservation.hold,
      idempotencyRecordId: reservation.recordId,
      signal: deadline.signal,
      engines: reservation.engines,
    });
  } catch (error) {
    await abandonRequest(getSqlDb(), reservation, { error }); // a release the database refused answers instead
    throw error;
  } finally {
    deadline.clear();
    if (charge) noteEngine(ctx.request, usedEngines(reservation).engine);
  }
}

/**
 * Step 11 as an event stream: 200 at once (every check passed, the units held), the pieces as they
 * come, and `done` only after the capture committed. Output delivered is output paid for: the hold
 * is marked delivered (one durable statement) before the first delta is written, so that even a
 * process that dies after it leaves a hold the sweeper captures; a client that goes away after the
 * first delta was written leaves the call running to its end (within the deadline), and the call is
 * charged and stored for replays as if `done` had reached it; one that goes away before any delta
 * aborts the call, which gives the units back. A failure (of the engine or of the mark) gives them back too.
 */
function streamOperation<P>(spec: PostRouteSpec<z.ZodType, P>, prepared: P, ctx: RouteContext, reservation: Reservation): Response {
  return eventStreamResponse(ctx.requestId, rateLimitHeaders(reservation.rate), async (disconnected, writeDelta) => {
    const deadline = requestDeadline(Math.max(1, getConfig().IDEMPOTENCY_LEASE_SECONDS - 5) * 1000);
    const hold = reservation.hold!;
    const gate = firstDeltaGate(writeDelta, (delivery) => markDelivered(getSqlDb(), hold.holdId, delivery), deadline.abort);
    const abortUndelivered = () => {
      if (!gate.written) deadline.abort(disconnected.reason);
    };
    disconnected.addEventListener('abort', abortUndelivered, { once: true });
    const { charge } = reservation.request;
    noteHeld(ctx.request, charge && { ...charge, engine: firstEngine(charge) });
    try {
      const runContext = { ...ctx, hold, idempotencyRecordId: reservation.recordId, signal: deadline.signal };
      const outcome = await spec.stream!(prepared, { ...runContext, engines: reservation.engines }, gate.onDelta);
      await gate.settled(); // the mark committed before anything is captured
      if (disconnected.aborted && !gate.written) throw disconnected.reason;
      const note = disconnected.aborted ? 'client_disconnected' : undefined;
      const done = await settleGeneration(getSqlDb(), reservation, outcome.output, note);
      observeStreamCharged(ctx.request);
      return done;
    } catch (error) {
      const failure = disconnected.aborted && !gate.written ? { error, code: 'client_disconnected' } : { error };
      await abandonRequest(getSqlDb(), reservation, failure).catch(() => {}); // a refused release is queued
      throw error;
    } finally {
      deadline.clear();
      disconnected.removeEventListener('abort', abortUndelivered);
      if (charge) noteEngine(ctx.request, usedEngines(reservation).engine);
    }
  });
}

/** Settles the reservation and answers; the rate headers tell the minute's count. */
async function respond(outcome: Outcome, reservation: Reservation): Promise<Response> {
  const headers = rateLimitHeaders(reservation.rate);
  const { requestId } = reservation.request;
  if (outcome.kind === 'generation') {
    return jsonText(200, await settleGeneration(getSqlDb(), reservation, outcome.output), requestId, headers);
  }
  const body = JSON.stringify(outcome.body);
  await settleResource(getSqlDb(), reservation, outcome.status, body, outcome.settled ?? false);
  return jsonText(outcome.status, body, requestId, headers);
}

/** A stored answer again; a stored generation as one `done` event when the retry asks for a stream. */
function replayResponse(replay: Replay, requestId: string, streamed: boolean): Response {
  const headers = { 'Idempotent-Replayed': 'true' };
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

export function defineGetRoute(spec: GetRouteSpec) {
  const { path, operationId, operation, summary, pathParams, response, errors, rateLimited } = spec;
  const route: RouteDoc = { method: 'GET', path, operationId, operation, summary, pathParams, response, errors, rateLimited };
  return documented(async function handle(request: Request, next?: NextContext): Promise<Response> {
    const requestId = newRequestId();
    try {
      const ctx = await routeContext(request, requestId, next);
      const rate = spec.rateLimited ? await consumeRequest(getSqlDb(), ctx.key.id, ctx.key.requestsPerMinute) : undefined;
      return jsonResponse(200, await spec.handle(ctx), requestId, rate && rateLimitHeaders(rate));
    } catch (error) {
      return toErrorResponse(error, requestId);
    }
  }, route);
}
