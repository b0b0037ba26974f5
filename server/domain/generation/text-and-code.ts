import type { CodeGenerateRequest, TextGenerateRequest } from '../../contract/generation';
import type { SqlDb } from '../../db/client';
import { isDeadline } from '../../lifecycle/abort-reason';
import { ProviderUnavailableError, type CodeTask, type TextResult, type TextTask } from '../../providers/engine';
import { ApiError } from '../errors';
import type { AuthenticatedKey } from '../keys/authenticate-key';
import { operationSettings, PackageSettingsCheck } from './package-settings';
import type { Delivery } from '../billing/mark-delivered';
import { estimateTextUsage, priceCall } from '../billing/provider-cost';
import { callEngine, EngineCallFailure, engineFailureOf, type EngineCall } from './call-engine';
import { unfitStreamedText, type StreamEnding } from './stream-endings';

export interface Prepared<T> {
  task: T;
  /** The package's engine, or its ordered fallbacks. */
  engine: string | readonly string[];
  units: number;
}

export function prepareTextGenerate(body: TextGenerateRequest, key: AuthenticatedKey): Prepared<TextTask> {
  const settings = operationSettings(key, 'text.generate');
  const check = new PackageSettingsCheck();
  const outputFormat = check.value('output_format', body.output_format, settings.output_formats, 'text');
  check.done();
  return {
    task: { input: body.input, context: body.context, outputFormat, maxOutputTokens: settings.max_output_tokens },
    engine: settings.engine,
    units: settings.units,
  };
}

export function prepareCodeGenerate(body: CodeGenerateRequest, key: AuthenticatedKey): Prepared<CodeTask> {
  const settings = operationSettings(key, 'code.generate');
  return {
    task: {
      input: body.input,
      language: body.language,
      requirements: body.requirements ?? [],
      maxOutputTokens: settings.max_output_tokens,
    },
    engine: settings.engine,
    units: settings.units,
  };
}

/** The characters of a text task's prompt, for the estimate of its tokens. */
const promptCharsOf = (task: TextTask) => task.input.length + (task.context?.length ?? 0);

/** Whether a failed call's provider had begun its answer, so read (and may bill) the prompt. */
const answerBegan = (error: unknown) => error instanceof ProviderUnavailableError && error.answerBegan;

/** A failed call's usage when its provider had begun answering: the prompt's tokens, estimated (billing.md). */
const promptIncurred = (promptChars: number) => (error: unknown) => (answerBegan(error) ? estimateTextUsage(promptChars, 0) : undefined);

export async function generateText(db: SqlDb, prepared: Prepared<TextTask>, signal: AbortSignal): Promise<EngineCall<{ text: string }>> {
  // The customer's output only; the engine's finish reason and token usage stay with the engine.
  const call = await callEngine(db, prepared.engine, (engine) => engine.generateText(prepared.task, signal), {
    signal,
    operation: 'text.generate',
    incurred: promptIncurred(promptCharsOf(prepared.task)),
    estimate: (answer) => estimateTextUsage(promptCharsOf(prepared.task), answer.text.length),
  });
  return { value: { text: call.value.text }, engines: call.engines };
}

/**
 * Where streamText hands each piece of its answer, in order; `delivery()` says which engine is
 * answering and what the call has used so far (estimated), for the hold's delivered mark.
 */
export type StreamDeltaSink = (text: string, delivery: () => Delivery) => void;

/**
 * generateText with the answer handed to `onDelta` piece by piece. The engines of the list are
 * tried in order only until the first piece was handed on; after that a failure is the call's, and
 * it is thrown with how the stream ended (stream-endings.ts): the deadline, the provider, or a whole
 * text that fails its output format (whitespace alone; JSON that does not parse), which only the
 * whole text can tell. A stream cut short (a failure after its first piece, or the request's signal
 * fired while the provider worked) records the usage it incurred, estimated from its prompt and the
 * text produced.
 */
export async function streamText(
  db: SqlDb,
  prepared: Prepared<TextTask>,
  signal: AbortSignal,
  onDelta: StreamDeltaSink,
): Promise<EngineCall<{ text: string }>> {
  let produced = 0;
  const promptChars = promptCharsOf(prepared.task);
  let call: EngineCall<TextResult>;
  try {
    call = await callEngine(
      db,
      prepared.engine,
      (engine, attempt) =>
        engine.streamText(prepared.task, signal, (piece) => {
          produced += piece.length;
          onDelta(piece, () => ({
            engine: attempt.name,
            enginesTried: [...attempt.tried],
            metering: { ...priceCall(engine.pricing, estimateTextUsage(promptChars, produced)), estimated: true },
          }));
        }),
      {
        signal,
        operation: 'text.generate',
        mayFallBack: () => produced === 0,
        incurred: (error) => (produced > 0 || signal.aborted || answerBegan(error) ? estimateTextUsage(promptChars, produced) : undefined),
        estimate: (answer) => estimateTextUsage(promptChars, answer.text.length),
      },
    );
  } catch (thrown) {
    if (produced === 0) throw thrown;
    const { error, engines } = engineFailureOf(thrown);
    throw new EngineCallFailure(error, engines ?? { tried: [] }, cutShort(signal) ?? 'provider_failed');
  }
  const unfit = unfitStreamedText(call.value.text, prepared.task.outputFormat);
  if (unfit) throw new EngineCallFailure(new ApiError('provider_unavailable', { retryAfter: 5 }), call.engines, unfit);
  return { value: { text: call.value.text }, engines: call.engines };
}

/** Why the request's signal cut a stream short, if it did: its deadline, or the instance stopping (in-flight.ts). */
function cutShort(signal: AbortSignal): StreamEnding | undefined {
  if (!signal.aborted) return undefined;
  return isDeadline(signal.reason) ? 'deadline_exceeded' : 'stream_interrupted';
}

export async function generateCode(
  db: SqlDb,
  prepared: Prepared<CodeTask>,
  signal: AbortSignal,
): Promise<EngineCall<{ code: string; explanation: string }>> {
  const { task } = prepared;
  const promptChars = task.input.length + (task.language?.length ?? 0) + task.requirements.join('\n').length;
  const call = await callEngine(db, prepared.engine, (engine) => engine.generateCode(task, signal), {
    signal,
    operation: 'code.generate',
    incurred: promptIncurred(promptChars),
    estimate: (answer) => estimateTextUsage(promptChars, answer.code.length + answer.explanation.length),
  });
  return { value: { code: call.value.code, explanation: call.value.explanation }, engines: call.engines };
}
