import type { SqlDb } from '../../db/client';
import {
  markLaterEngine,
  ProviderUnavailableError,
  type Engine,
  type GenerationMeta,
  type ProviderFailureKind,
  type ProviderUsage,
} from '../../providers/engine';
import { MediaDecodeError } from '../../providers/local/media-decode-error';
import { resolveEngine } from '../providers/resolve-engine';
import { countFallback, countProviderCost } from '../../observability/metrics';
import { measureProviderCall } from '../../observability/provider-calls';
import type { EngineReport } from '../billing/engine-report';
import { addMetering, priceCall, reportsNothing, type Metering } from '../billing/provider-cost';
import { ApiError } from '../errors';
import { engineNamesOf } from '../engine-names';
import { providerCircuitOpenMs, recordProviderFailure, recordProviderSuccess } from '../providers/provider-circuit';
import type { StreamEnding } from './stream-endings';

export type { EngineReport };

/** An engine call's result and what it learned. */
export interface EngineCall<T> {
  value: T;
  engines: EngineReport;
}

/**
 * A failed engine call: the error it ended with, and what it learned, so the failed attempt's
 * usage event still names its engines and counts what it incurred. It travels only from the engine
 * call to the code that settles the request, which takes `error` out (engineFailureOf) and answers with it.
 */
export class EngineCallFailure extends Error {
  constructor(
    readonly error: unknown,
    readonly engines: EngineReport,
    /** A streamed answer that failed after its first piece was handed on: how it ended (stream-endings.ts). */
    readonly ending?: StreamEnding,
  ) {
    super('the engine call failed', { cause: error });
    this.name = 'EngineCallFailure';
  }
}

/** `error` with the report of the engine call it ended (returned, to be thrown); one already carrying a report keeps it. */
export function withEngineReport(error: unknown, engines: EngineReport): EngineCallFailure {
  return error instanceof EngineCallFailure ? error : new EngineCallFailure(error, engines);
}

/** The error a failed engine call ended with, what it had learned (undefined when no engine call threw it) and, for a stream, how it ended. */
export function engineFailureOf(thrown: unknown): { error: unknown; engines?: EngineReport; ending?: StreamEnding } {
  if (!(thrown instanceof EngineCallFailure)) return { error: thrown };
  return { error: thrown.error, engines: thrown.engines, ...(thrown.ending ? { ending: thrown.ending } : {}) };
}

/** The engine a `work` call runs on, by name, and every engine called so far (this one last). */
export interface EngineAttempt {
  name: string;
  tried: readonly string[];
}

export interface CallEngineOptions<T = unknown> {
  /** The request's deadline: no further engine is tried once it fired. */
  signal?: AbortSignal;
  /** The operation sold, for the fallback metric. */
  operation?: string;
  /** False once part of an answer reached the customer (a stream): a failure then ends the call. */
  mayFallBack?: () => boolean;
  /**
   * What a failed call used at its provider although it reported nothing (a stream cut short; an
   * answer begun, then failed: answerBegan), as an estimate; undefined: nothing. Recorded with the
   * failure, so its cost is counted.
   */
  incurred?: (error: unknown) => ProviderUsage | undefined;
  /**
   * What an answer used, estimated from what was asked and answered (tokens from text, seconds of
   * media), for a provider that reported nothing: the call's usage and cost are then marked estimated.
   */
  estimate?: (answer: T) => ProviderUsage | Promise<ProviderUsage>;
}

/** Failures another provider may not share: the next engine of the list is tried. */
const FALLBACK_KINDS = new Set<ProviderFailureKind>([
  'timeout',
  'rate_limited',
  'server_error',
  'connection',
  'malformed',
  'not_configured',
]);
/** Failures that count towards a provider's circuit (a refused request or a missing key say nothing of its health). */
const CIRCUIT_KINDS = new Set<ProviderFailureKind>(['timeout', 'rate_limited', 'server_error', 'connection', 'malformed']);

const providerOf = (engineName: string) => (engineName === 'local' ? undefined : engineName.slice(0, engineName.indexOf(':')));

/**
 * Runs one call on the package's engine, or on its fallbacks in order: a failure of a kind in
 * FALLBACK_KINDS moves on to the next. An engine whose provider's circuit is open is skipped only
 * while a later engine remains to answer instead; the last one is always called, so a sole
 * engine's customers are served the moment its provider answers again. When none answers (or
 * the failure was the request's own), 503 provider_unavailable with Retry-After.
 */
export async function callEngine<T>(
  db: SqlDb,
  setting: string | readonly string[],
  work: (engine: Engine, attempt: EngineAttempt) => Promise<T>,
  options: CallEngineOptions<T> = {},
): Promise<EngineCall<T>> {
  const report: EngineReport = { tried: [] };
  try {
    return { value: await callInOrder(db, engineNamesOf(setting), work, options, report), engines: report };
  } catch (error) {
    throw withEngineReport(error, report);
  }
}

async function callInOrder<T>(
  db: SqlDb,
  names: readonly string[],
  work: (engine: Engine, attempt: EngineAttempt) => Promise<T>,
  options: CallEngineOptions<T>,
  report: EngineReport,
): Promise<T> {
  let lastError: unknown;
  let previous: string | undefined; // the engine tried or skipped before this one
  for (const [index, name] of names.entries()) {
    if (options.signal?.aborted) break;
    // A fallback from the one before, whether it failed or was skipped (its calls go on to this one: operations audit).
    if (previous) countFallback(options.operation ?? 'unknown', previous, name);
    previous = name;
    const provider = providerOf(name);
    const laterEngineRemains = index < names.length - 1;
    if (provider && laterEngineRemains && (await providerCircuitOpenMs(db, provider)) > 0) continue;
    report.tried.push(name);
    let engine: Engine | undefined;
    try {
      engine = await resolveEngine(name);
      const resolved = engine;
      if (options.signal) markLaterEngine(options.signal, laterEngineRemains);
      const result = await measureProviderCall(name, () => work(resolved, { name, tried: report.tried }), options.signal);
      report.answered = name;
      const finishReason = (result as GenerationMeta | null)?.finishReason;
      if (finishReason) report.finishReason = finishReason;
      meter(report, name, await priceAnswer(engine, result, options.estimate));
      if (provider) await recordProviderSuccess(db, provider);
      return result;
    } catch (error) {
      const incurred = engine && options.incurred?.(error);
      if (incurred) meter(report, name, { ...priceCall(engine!.pricing, incurred), estimated: true });
      if (error instanceof ApiError) throw error;
      if (error instanceof MediaDecodeError) throw undecodableMedia(error);
      lastError = error;
      if (!(error instanceof ProviderUnavailableError)) {
        console.error('[engine] unexpected failure', error);
        break;
      }
      // A call cut short by the request's own deadline says nothing of the provider.
      if (provider && CIRCUIT_KINDS.has(error.kind) && !options.signal?.aborted) await recordProviderFailure(db, provider);
      if (!FALLBACK_KINDS.has(error.kind) || options.mayFallBack?.() === false) break;
    }
  }
  const retryAfter = lastError instanceof ProviderUnavailableError ? lastError.retryAfterSeconds : 5;
  throw new ApiError('provider_unavailable', { retryAfter, cause: lastError });
}

/**
 * An answer's usage and cost: as its provider reported them, else (a provider that reports none)
 * as estimated from the answer, marked so; one that cannot be estimated either is unpriced, never nothing.
 */
async function priceAnswer<T>(engine: Engine, answer: T, estimate: CallEngineOptions<T>['estimate']): Promise<Metering> {
  const priced = priceCall(engine.pricing, (answer as { usage?: ProviderUsage } | null)?.usage);
  if (!engine.pricing || !estimate || !reportsNothing(priced)) return priced;
  try {
    return { ...priceCall(engine.pricing, await estimate(answer)), estimated: true };
  } catch (error) {
    console.error(`[engine ${engine.name}] its usage could not be estimated`, error);
    return { ...priced, unpriced: true, estimated: true };
  }
}

/** Adds a call's usage and cost to the request's, and to the provider-cost metric. */
function meter(report: EngineReport, engineName: string, priced: Metering): void {
  report.metering = addMetering(report.metering, priced);
  countProviderCost(engineName, priced.cost, priced.unpriced);
}

/**
 * The input passed its magic-byte check but holds no usable media: the caller's to fix. The
 * decoder's sentence says what is wrong (no audio track, no frame); its cause is not shown.
 */
function undecodableMedia(error: MediaDecodeError): ApiError {
  const reason = error.message.charAt(0).toLowerCase() + error.message.slice(1);
  return ApiError.validation([{ path: 'input_upload_id', code: 'undecodable_media', message: `input_upload_id: ${reason}` }]);
}
