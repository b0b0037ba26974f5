import { z } from 'zod';
import { getSqlDb } from '../../db/client';
import { reserve, type OpenReservation } from '../../domain/billing/reserve';
import type { RenderGeneration } from '../../domain/billing/reservation';
import { ApiError, isApiError, validationIssuesOf } from '../../domain/errors';
import type { AuthenticatedKey } from '../../domain/keys/authenticate-key';
import type { Operation } from '../../contract/values';
import { consumeRequest, type RateState } from '../../domain/rate-limit/request-rate';
import { zodValidationError } from '../../domain/zod-issues';
import { traceStep } from '../../observability/tracing';
import { jsonChannel, runAndSettle, wholeAnswerChannel } from '../answer-lifecycle';
import { observeStreamCharged } from '../../observability/observe-request';
import { routeContext, type PostRouteSpec } from '../pipeline';
import type { RouteCall, RouteDoc, RouteSpec } from '../route-doc';
import type { RouteContext } from '../route-context';
import { newRequestId } from '../request-id';
import { jsonResponse } from '../responses';
import { noModelForPath, toOpenAIErrorResponse } from './openai-errors';
import { rateHeadersOf, withHeaders } from './openai-headers';
import { openAIBillingRequest, sentIdempotencyKey } from './openai-idempotency';
import { streamAnswer, type ChunkStream } from './openai-stream';
import { endingOf } from '../event-stream';
import { noteError } from '../../observability/request-record';

// A route of the OpenAI-compatible surface translates, it does not duplicate: its request becomes
// the body of the /v1 route that sells the same operation, checked by that route's schema and
// prepared by its steps (package settings, 422 here a 400 naming the OpenAI parameter), then
// reserved, run and settled by the same lifecycle as /v1 (the claim, the hold, the engine, the
// capture with its usage event, or the release), with the surface named on the hold and usage
// event. Only the answer is OpenAI's: built from what the call stored, so a replay answers the same.

/** What a route makes of one OpenAI request. */
/** The steps of a /v1 route, whatever its body's type (each is given the body its own schema parsed). */
export type V1Steps<P> = Omit<PostRouteSpec<z.ZodType, P>, 'prepare'> & { prepare(body: never, ctx: RouteContext): P | Promise<P> };

export interface Translation<P> {
  /** The steps of the /v1 route that runs it. */
  steps: V1Steps<P>;
  /** The /v1 body, checked by the route's schema and prepared by its steps... */
  v1Body?: Record<string, unknown>;
  /** ...or a preparation of its own, where the /v1 body cannot say it (a file sent inline). */
  prepare?: (ctx: RouteContext) => Promise<P>;
  /** /v1 field names and the OpenAI parameters they came from, for the 400 of a refused setting. */
  params: Record<string, string>;
  /** What the request's fingerprint hashes (the OpenAI body as sent). */
  fingerprinted: unknown;
  /** A charged generation's stored answer (its replays answer it again). */
  render?: RenderGeneration;
  /** Answered as chat.completion.chunk events: the stream's pieces (a route with the /v1 stream step streams live). */
  chunks?: ChunkStream;
  /** Answered as events once whole (`respond` writes them): a client gone before then is charged nothing. */
  streamsWhole?: boolean;
  /** The answer from the stored body, the first time and on every replay (`ended`: the error a charged stream ended with). */
  respond(stored: string, ctx: RouteContext, ended?: ApiError): Promise<Response> | Response;
}

/** A route's translation, its prepared type known to it alone (the route runs its own steps on it). */
export const translated = <P>(translation: Translation<P>): Translation<unknown> => translation as unknown as Translation<unknown>;

export interface OpenAIPostSpec<B> {
  path: string;
  operationId: string;
  operation: string;
  summary: string;
  /** The /v1 operations its models run: a key whose package sells none is refused before its body is read. */
  sells: readonly Operation[];
  read(request: Request, key: AuthenticatedKey): Promise<B>;
  /** The model resolved (404 `model_not_found`), the parameters checked (400 naming them), the /v1 request built. */
  translate(body: B, ctx: RouteContext): Promise<Translation<unknown>> | Translation<unknown>;
}

/** A /v1 field's 422 as the OpenAI parameter it came from, named in `param` and in the message (its code mapped by openAIError). */
function renamed(error: unknown, params: Record<string, string> | undefined): unknown {
  if (!isApiError(error) || error.code !== 'validation_error' || !params) return error;
  const issue = validationIssuesOf(error)[0];
  if (!issue) return error;
  const param = params[issue.path.split('.')[0]!] ?? issue.path;
  const prefix = `${issue.path}:`;
  const message = issue.path && error.message.startsWith(prefix) ? `${param}:${error.message.slice(prefix.length)}` : error.message;
  return new ApiError('invalid_request', { message, details: { param, code: issue.code } });
}

/** A /v1 body checked by its route's schema: 422 (a 400 here, naming the parameter) when it fails. */
export function parseV1Body<S extends z.ZodType>(schema: S, body: Record<string, unknown>): z.infer<S> {
  const defined = Object.fromEntries(Object.entries(body).filter(([, value]) => value !== undefined));
  const parsed = schema.safeParse(defined);
  if (!parsed.success) throw zodValidationError(parsed.error, defined);
  return parsed.data;
}

async function prepare<P>(translation: Translation<P>, ctx: RouteContext): Promise<P> {
  if (translation.prepare) return translation.prepare(ctx);
  return translation.steps.prepare(parseV1Body(translation.steps.schema, translation.v1Body ?? {}) as never, ctx);
}

/** A path none of whose operations the key's package sells has no model for it: 404 `model_not_found`, its body unread. */
function refuseUnsoldPath(key: AuthenticatedKey, spec: { path: string; sells: readonly Operation[] }): void {
  if (spec.sells.some((operation) => key.operations[operation])) return;
  throw noModelForPath(spec.path);
}

/** A retry the SDK sent without an Idempotency-Key hears of the call it retries, not of a key it never sent. */
function toKeylessCaller(error: unknown, sentKey: string | undefined): unknown {
  if (sentKey !== undefined || !isApiError(error) || error.code !== 'idempotency_key_in_use') return error;
  const { details, retryAfter, headers, cause } = error;
  const message = 'The call this request retries is still running. Retry shortly: it runs once, and its answer is given again.';
  return new ApiError('idempotency_key_in_use', { message, details, retryAfter, headers, cause });
}

export function defineOpenAIPostRoute<B>(spec: OpenAIPostSpec<B>): RouteSpec {
  const doc: RouteDoc = { ...routeDoc(spec, 'POST'), errors: [400, 401, 403, 404, 409, 413, 422, 429, 500, 503] };
  async function handle(request: Request, call: RouteCall): Promise<Response> {
    const requestId = newRequestId();
    let reservation: OpenReservation | undefined;
    let translation: Translation<unknown> | undefined;
    let sentKey: string | undefined;
    try {
      const ctx = await routeContext(request, requestId, call);
      refuseUnsoldPath(ctx.key, spec); // the scope, before the key and the body (CONTRACT.md §3)
      sentKey = sentIdempotencyKey(ctx);
      translation = await spec.translate(await spec.read(request, ctx.key), ctx);
      const prepared = await prepare(translation, ctx);
      const billing = await openAIBillingRequest(ctx, sentKey, translation.fingerprinted, translation.steps.charge?.(prepared, ctx));
      const reserved = await traceStep('reserve', () => reserve(getSqlDb(), { ...billing, render: translation!.render }));
      if (reserved.kind === 'replay') {
        const ending = endingOf(reserved.events);
        // A replayed stream that ended in an error ends in it again: its line and metric say so, as the first one's did.
        if (ending && translation.chunks) noteError(call.record, ending);
        const replayed = await translation.respond(reserved.body, ctx, ending);
        return withHeaders(replayed, { 'Idempotent-Replayed': 'true' });
      }
      reservation = reserved.reservation;
      const headers = rateHeadersOf(reservation.rate);
      if (translation.chunks && translation.steps.stream) {
        return await streamAnswer(ctx, reservation, translation.steps, prepared, translation.chunks, headers);
      }
      const { run } = translation.steps;
      const whole = translation.streamsWhole;
      const settled = await runAndSettle(
        ctx,
        reservation,
        whole ? wholeAnswerChannel(run, prepared, request.signal) : jsonChannel(run, prepared),
      );
      if (whole) observeStreamCharged(ctx.record); // an event stream's units are counted and logged so
      return withHeaders(await translation.respond(settled.body, ctx), headers);
    } catch (error) {
      await reservation?.abandon();
      const response = toOpenAIErrorResponse(renamed(toKeylessCaller(error, sentKey), translation?.params), requestId, call.record);
      return reservation ? withHeaders(response, rateHeadersOf(reservation.rate)) : response; // its point is kept
    }
  }
  return { doc, handle };
}

/** Its answers are OpenAI's objects (docs/openai-compatible.md), not schemas of this contract. */
const OPENAI_OBJECT = z.looseObject({});

function routeDoc(spec: { path: string; operationId: string; operation: string; summary: string }, method: 'GET' | 'POST') {
  const { path, operationId, operation, summary } = spec;
  return { method, path, operationId, operation, summary, response: { status: 200 as const, schema: OPENAI_OBJECT, description: summary } };
}

export interface OpenAIGetSpec {
  path: string;
  operationId: string;
  operation: string;
  summary: string;
  /** The answer; counts against the key's requests per minute. */
  handle(ctx: RouteContext): Promise<Response | unknown>;
}

export function defineOpenAIGetRoute(spec: OpenAIGetSpec): RouteSpec {
  const doc: RouteDoc = { ...routeDoc(spec, 'GET'), errors: [401, 404, 429, 500, 503], rateLimited: true };
  async function handle(request: Request, call: RouteCall): Promise<Response> {
    const requestId = newRequestId();
    let rate: RateState | undefined;
    try {
      const ctx = await routeContext(request, requestId, call);
      rate = await consumeRequest(getSqlDb(), ctx.key.id, ctx.key.requestsPerMinute);
      const answer = await spec.handle(ctx);
      const response = answer instanceof Response ? answer : jsonResponse(200, answer, requestId);
      response.headers.set('X-Request-Id', requestId);
      return withHeaders(response, rateHeadersOf(rate));
    } catch (error) {
      const response = toOpenAIErrorResponse(error, requestId, call.record);
      return rate ? withHeaders(response, rateHeadersOf(rate)) : response; // a 404 took its point too
    }
  }
  return { doc, handle };
}
