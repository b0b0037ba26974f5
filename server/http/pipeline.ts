import { randomUUID } from 'node:crypto';
import type { z } from 'zod';
import { getConfig } from '../config';
import { ApiError, isApiError } from '../domain/errors';
import {
  claimIdempotencyKey,
  completeIdempotencyKey,
  findExisting,
  judgeExisting,
  type ClaimResult,
  releaseIdempotencyKey,
  requestFingerprint,
} from '../domain/idempotency/idempotency-store';
import type { EngineTrace } from '../domain/generation/call-engine';
import { engineNamesOf } from '../domain/packages/engine-names';
import { authenticateKey, type AuthenticatedKey } from '../domain/keys/authenticate-key';
import type { Operation } from '../domain/operations';
import { claimAndHold, type ClaimAndHoldResult } from '../domain/quota/claim-and-hold';
import { captureHold, releaseHold, type Hold } from '../domain/quota/unit-holds';
import { consumeRequest, rateLimitHeaders, refundRequest, type RateState } from '../domain/rate-limit/request-rate';
import { zodValidationError } from '../domain/zod-issues';
import { observed } from '../observability/observe-request';
import { noteEngine, noteHeld, noteKey } from '../observability/request-record';
import { traceStep } from '../observability/tracing';
import { publicOrigin, readIdempotencyKey, requireJsonContentType } from './headers';
import { parseJsonObject, readBodyBytes } from './read-json-body';
import { requestDeadline } from './request-deadline';
import { newRequestId } from './request-id';
import { jsonResponse, jsonText, toErrorResponse } from './responses';

// Every /v1 request passes these steps in the order of CONTRACT.md §3; the first failure
// wins and nothing reaches an engine before the units are held.

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

export interface Charge {
  operation: Operation;
  units: number;
  /** The package's engine setting: one name or its ordered fallbacks. */
  engine: string | readonly string[];
}

export type Outcome =
  /** HTTP 200 Generation result; the hold is captured with the usage event. */
  | { kind: 'generation'; output: unknown }
  /** Any other success body; `settled` when `run` already stored the response itself. */
  | { kind: 'resource'; status: 200 | 201 | 202; body: unknown; settled?: boolean };

export interface PostRouteSpec<S extends z.ZodType, P> {
  /** Step 2: the operation the key's package must sell, or a rule for routes that are not operations. */
  scope: Operation | ((key: AuthenticatedKey) => boolean);
  schema: S;
  /** Step 7, after the schema: package settings and referenced resources. */
  prepare: (body: z.infer<S>, ctx: RouteContext) => Promise<P> | P;
  /** Step 10: the units to hold; routes that charge nothing omit it. */
  charge?: (prepared: P, ctx: RouteContext) => Charge;
  run: (prepared: P, ctx: RunContext) => Promise<Outcome>;
}

type NextContext = { params?: Promise<Record<string, string | string[]>> };

async function routeContext(request: Request, requestId: string, next?: NextContext): Promise<RouteContext> {
  const key = await traceStep('authenticate', () => authenticateKey(request.headers.get('authorization')));
  noteKey(request, key);
  const raw = (await next?.params) ?? {};
  const params = Object.fromEntries(Object.entries(raw).map(([name, value]) => [name, Array.isArray(value) ? value.join('/') : value]));
  const origin = publicOrigin(request, getConfig().PUBLIC_BASE_URL);
  return { request, requestId, key, params, origin };
}

function allowed(scope: PostRouteSpec<z.ZodType, unknown>['scope'], key: AuthenticatedKey): boolean {
  return typeof scope === 'function' ? scope(key) : Boolean(key.operations[scope]);
}

function leaseSeconds(): number {
  return getConfig().IDEMPOTENCY_LEASE_SECONDS;
}

export function definePostRoute<S extends z.ZodType, P>(spec: PostRouteSpec<S, P>) {
  return async function handle(request: Request, next?: NextContext): Promise<Response> {
    const requestId = newRequestId();
    let recordId: string | undefined;
    let hold: (Hold & { units: number }) | undefined;
    try {
      const ctx = await routeContext(request, requestId, next); // 1. 401
      if (!allowed(spec.scope as PostRouteSpec<z.ZodType, unknown>['scope'], ctx.key)) throw new ApiError('forbidden'); // 2. 403
      requireJsonContentType(request); // 3. 415
      const idempotencyKey = readIdempotencyKey(request); // 4. 400
      const bytes = await readBodyBytes(request); // 5. 413
      const json = parseJsonObject(bytes); // 6. 400
      const parsed = spec.schema.safeParse(json); // 7. 422
      if (!parsed.success) throw zodValidationError(parsed.error, json);
      const prepared = await spec.prepare(parsed.data, ctx);

      // `/v1/text/generate/` reaches the same route (no redirect): one scope for both spellings.
      const path = new URL(request.url).pathname.replace(/\/+$/, '');
      const scope = { apiKeyId: ctx.key.id, method: 'POST', path, key: idempotencyKey };
      const fingerprint = requestFingerprint('POST', path, json);
      const charge = spec.charge?.(prepared, ctx);

      // 8. idempotency and 9. rate share their round trips: the request-rate point is taken
      // first and given back when the key turns out to be another request's (replay, 409,
      // 422), so those answer as if step 9 never ran; a rate-limited request whose key has a
      // record still gets step 8's answer.
      let rate: RateState;
      try {
        rate = await traceStep('rate_limit', () => consumeRequest(ctx.key.id, ctx.key.requestsPerMinute)); // 9. 429
      } catch (error) {
        const existing = isApiError(error) && error.code === 'rate_limited' ? await findExisting(scope) : undefined;
        if (!existing) throw error;
        // The limiter counted the refused point too: given back, so that a burst of retries
        // answered by step 8 (409 while the first runs) does not use up the minute.
        await refundRequest(ctx.key.id, ctx.key.requestsPerMinute);
        return replayResponse(judgeExisting(existing, fingerprint), requestId);
      }
      try {
        const claim = await traceStep<ClaimAndHoldResult | ClaimResult>('claim_and_hold', () => charge
          ? claimAndHold(scope, fingerprint, { // 8. and 9./10. 429 concurrency, 402 quota
            units: charge.units,
            operation: charge.operation,
            requestId,
            concurrency: ctx.key.concurrency,
            leaseSeconds: getConfig().HOLD_LEASE_SECONDS,
          })
          : claimIdempotencyKey(scope, fingerprint)); // 8.
        if (claim.kind === 'replay') {
          await refundRequest(ctx.key.id, ctx.key.requestsPerMinute);
          return replayResponse(claim, requestId);
        }
        recordId = claim.recordId;
        if (charge && claim.kind === 'held') hold = { ...claim.hold, units: charge.units };
      } catch (error) {
        if (isApiError(error) && IDEMPOTENCY_CONFLICTS.has(error.code)) await refundRequest(ctx.key.id, ctx.key.requestsPerMinute);
        // The concurrency limit's 429 and the quota's 402 tell the minute's count too, as the
        // per-minute 429 does. Their point is kept: given back, a key at its concurrency limit
        // could send refused requests (each a few writes) without any per-minute bound.
        if (isApiError(error) && (error.code === 'rate_limited' || error.code === 'quota_exhausted')) {
          throw error.withHeaders(rateLimitHeaders(rate));
        }
        throw error;
      }

      noteHeld(request, charge && { ...charge, engine: engineNamesOf(charge.engine)[0]! });
      const started = Date.now();
      const deadline = requestDeadline(Math.max(1, leaseSeconds() - 5) * 1000);
      const engines: EngineTrace = { tried: [] };
      let outcome: Outcome;
      try {
        outcome = await traceStep('run', () => spec.run(prepared, { ...ctx, hold, idempotencyRecordId: recordId!, signal: deadline.signal, engines })); // 11.
      } catch (error) {
        if (hold && charge) {
          const code = isApiError(error) ? error.code : 'internal_error';
          await releaseHold(hold.holdId, {
            usageEventId: randomUUID(), packageVersionId: ctx.key.packageVersionId, operation: charge.operation,
            ...usedEngines(charge, engines), requestId, durationMs: Date.now() - started, errorCode: code,
          }, recordId);
          hold = undefined;
          recordId = undefined;
        }
        throw error;
      } finally {
        deadline.clear();
        if (charge) noteEngine(request, usedEngines(charge, engines).engine);
      }

      const headers = rateLimitHeaders(rate);
      if (outcome.kind === 'generation') {
        if (!hold || !charge) throw new Error('a generation route must charge');
        const usageEventId = randomUUID();
        const body = JSON.stringify({
          id: usageEventId,
          object: 'generation',
          operation: charge.operation,
          output: outcome.output,
          usage: { charged_units: charge.units, remaining_units: hold.remainingUnits },
        });
        const captured = await traceStep('capture', () => captureHold(
          hold!.holdId,
          { usageEventId, packageVersionId: ctx.key.packageVersionId, operation: charge.operation,
            ...usedEngines(charge, engines), requestId, durationMs: Date.now() - started },
          { recordId: recordId!, status: 200, body },
        ));
        if (!captured) {
          // The hold outlived its lease and was returned: the result cannot be charged, so it is not given.
          hold = undefined;
          throw new ApiError('provider_unavailable', { retryAfter: 1 });
        }
        return jsonText(200, body, requestId, headers);
      }
      const body = JSON.stringify(outcome.body);
      if (!outcome.settled) await completeIdempotencyKey(recordId, outcome.status, body);
      return jsonText(outcome.status, body, requestId, headers);
    } catch (error) {
      await cleanUp(hold?.holdId, recordId);
      return toErrorResponse(error, requestId);
    }
  };
}

/** The usage event's engines: the one that answered (else the last tried, else the first named) and all tried. */
function usedEngines(charge: Charge, trace: EngineTrace): { engine: string; enginesTried: string[] } {
  return { engine: trace.answered ?? trace.tried.at(-1) ?? engineNamesOf(charge.engine)[0]!, enginesTried: trace.tried };
}

const IDEMPOTENCY_CONFLICTS = new Set(['idempotency_key_in_use', 'idempotency_key_reused']);

function replayResponse(replay: { status: number; body: string }, requestId: string): Response {
  return jsonText(replay.status, replay.body, requestId, { 'Idempotent-Replayed': 'true' });
}

async function cleanUp(holdId: string | undefined, recordId: string | undefined): Promise<void> {
  try {
    if (holdId) await releaseHold(holdId, undefined, recordId);
    else if (recordId) await releaseIdempotencyKey(recordId);
  } catch {
    // The database is unreachable: the sweeper returns the hold and the lease frees the key.
  }
}

export interface GetRouteSpec {
  handle: (ctx: RouteContext) => Promise<unknown>;
}

export function defineGetRoute(spec: GetRouteSpec) {
  return async function handle(request: Request, next?: NextContext): Promise<Response> {
    const requestId = newRequestId();
    try {
      const ctx = await routeContext(request, requestId, next);
      return jsonResponse(200, await spec.handle(ctx), requestId);
    } catch (error) {
      return toErrorResponse(error, requestId);
    }
  };
}

const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'] as const;
type Method = (typeof METHODS)[number];
type Handler = (request: Request, next?: NextContext) => Promise<Response>;

/** HEAD as GET answers it, without the body; the body is cancelled so a streamed object is closed, not leaked. */
function headOf(get: Handler): Handler {
  return async (request, next) => {
    const response = await get(request, next);
    await response.body?.cancel().catch(() => {});
    return new Response(null, { status: response.status, headers: response.headers });
  };
}

/**
 * The exports of a /v1 route file: the given methods, HEAD wherever GET is (RFC 9110 §9.3.2; the
 * server sends no body for it), and 405 with `Allow` for every other.
 */
export function routeMethods(given: Partial<Record<Method, Handler>>): Record<Method, Handler> {
  const handlers = observedHandlers(given.GET && !given.HEAD ? { ...given, HEAD: headOf(given.GET) } : given);
  const allow = METHODS.filter((method) => handlers[method]).join(', ');
  const notAllowed: Handler = async () => {
    const requestId = newRequestId();
    const response = toErrorResponse(new ApiError('method_not_allowed', { headers: { Allow: allow } }), requestId);
    return response;
  };
  return Object.fromEntries(METHODS.map((method) => [method, handlers[method] ?? observed(notAllowed)])) as Record<Method, Handler>;
}

/** Every answer is counted, measured and logged at this edge (server/observability). */
function observedHandlers(handlers: Partial<Record<Method, Handler>>): Partial<Record<Method, Handler>> {
  return Object.fromEntries(Object.entries(handlers).map(([method, handler]) => [method, observed(handler)]));
}

/** Every method on an unknown /v1 path. */
export function notFoundMethods(): Record<Method, Handler> {
  const notFound: Handler = observed(async () => toErrorResponse(new ApiError('not_found'), newRequestId()));
  return Object.fromEntries(METHODS.map((method) => [method, notFound])) as Record<Method, Handler>;
}
