import type {
  LanguageModelV3,
  LanguageModelV3CallOptions,
  LanguageModelV3FinishReason,
  LanguageModelV3GenerateResult,
  LanguageModelV3StreamPart,
} from '@ai-sdk/provider';
import {
  afterAnswerBegan,
  deadlineOf,
  laterEngineRemains,
  ProviderUnavailableError,
  type GenerationMeta,
  type TextDeltaSink,
} from '../engine';
import { STREAMED_TEXT_LIMIT, tooLarge } from '../reply-limits';
import { withRetries } from '../retry';
import { believableQuantity } from '../usage-bounds';
import type { Prompt } from './prompts';

// The two calls of a language model the engine makes for text and code: its doGenerate, and its
// doStream for streamed text, each under the gate's own bounded retry (retry.ts). A stream is
// retried only until its first piece of text: after that the customer has part of the answer.

export function malformed(message: string): ProviderUnavailableError {
  return new ProviderUnavailableError(message, 5, { kind: 'malformed' });
}

export function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw malformed('the provider returned invalid JSON');
  }
}

export interface LanguageCall {
  prompt: Prompt;
  responseFormat?: LanguageModelV3CallOptions['responseFormat'];
  maxOutputTokens?: number;
  temperature?: number;
  /** The provider module's own options (ProviderModule.languageOptions). */
  providerOptions?: unknown;
  signal: AbortSignal;
  /** More attempts after the first (PROVIDER_MAX_RETRIES). */
  maxRetries: number;
}

function callOptions(call: LanguageCall): LanguageModelV3CallOptions {
  return {
    prompt: [
      { role: 'system', content: call.prompt.system },
      { role: 'user', content: [{ type: 'text', text: call.prompt.user }] },
    ],
    ...(call.responseFormat ? { responseFormat: call.responseFormat } : {}),
    ...(call.maxOutputTokens !== undefined ? { maxOutputTokens: call.maxOutputTokens } : {}),
    ...(call.temperature !== undefined ? { temperature: call.temperature } : {}),
    ...(call.providerOptions ? { providerOptions: call.providerOptions as never } : {}),
    abortSignal: call.signal,
  };
}

const retryOptions = (call: LanguageCall) => ({
  maxRetries: call.maxRetries,
  signal: call.signal,
  deadline: deadlineOf(call.signal),
  laterEngine: laterEngineRemains(call.signal),
});

/**
 * The answer's finish reason and usage. Usage no call can have is a malformed answer, whatever the
 * provider's type: the anthropic and google modules' own schemas refuse a negative count, the
 * openai-compatible one took it (engines audit).
 */
function metaOf(result: Pick<LanguageModelV3GenerateResult, 'finishReason' | 'usage'>): GenerationMeta {
  const usage = {
    inputTokens: result.usage.inputTokens.total,
    outputTokens: result.usage.outputTokens.total,
    cachedInputTokens: result.usage.inputTokens.cacheRead,
  };
  const impossible = Object.entries(usage).some(([field, count]) => !believableQuantity(field as keyof typeof usage, count));
  if (impossible) throw malformed('the provider reported a token count no call can have');
  return { finishReason: result.finishReason.unified, usage };
}

/** One text answer of the language model: its doGenerate, retried by the gate's policy. */
export async function generateOnce(model: LanguageModelV3, call: LanguageCall): Promise<{ text: string } & GenerationMeta> {
  const options = callOptions(call);
  const result = await withRetries(async () => model.doGenerate(options), retryOptions(call));
  let text = '';
  for (const part of result.content) if (part.type === 'text') text += part.text;
  // An answer with no text is no answer: 503 with nothing charged, not a paid empty result.
  if (text.trim() === '') throw malformed('empty completion');
  return { text, ...metaOf(result) };
}

/**
 * Whether a stream's finish part says its provider finished: a reason it sent (`raw`), or one the
 * module read from its protocol (OpenAI's Responses API, through the gateway too, finishes with
 * `stop` and no raw reason). A module whose stream merely ended gives its own `other` and no raw
 * reason at the end (google, openai-compatible, OpenAI's chat), or no finish part (anthropic).
 */
const finished = (reason: LanguageModelV3FinishReason) => reason.raw !== undefined || reason.unified !== 'other';

type StreamReader = ReadableStreamDefaultReader<LanguageModelV3StreamPart>;

/** Reads a stream's parts up to its first piece of text (or its end); an error part is thrown. */
async function readToFirstText(reader: StreamReader): Promise<LanguageModelV3StreamPart[]> {
  const parts: LanguageModelV3StreamPart[] = [];
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return parts;
    if (value.type === 'error') throw value.error;
    parts.push(value);
    if (value.type === 'text-delta' && value.delta !== '') return parts;
  }
}

/**
 * One streamed text answer: the model's doStream, opened and read up to its first piece of text
 * under the gate's retry (nothing has reached the customer yet), then read to its end with every
 * piece handed on; a failure after the first piece is not retried. A stream without a single piece
 * is a failure; what the pieces add up to (whitespace, JSON that does not parse) is the caller's to
 * judge, as they were delivered already.
 */
export async function streamOnce(
  model: LanguageModelV3,
  call: LanguageCall,
  onDelta: TextDeltaSink,
): Promise<{ text: string } & GenerationMeta> {
  const options = callOptions(call);
  const opened = await withRetries(async () => {
    const reader = (await model.doStream(options)).stream.getReader();
    try {
      return { reader, first: await readToFirstText(reader) };
    } catch (error) {
      reader.cancel().catch(() => {});
      throw afterAnswerBegan(error); // its headers came (doStream resolved)
    }
  }, retryOptions(call));
  let text = '';
  let bytes = 0;
  let meta: GenerationMeta | undefined;
  const take = (part: LanguageModelV3StreamPart) => {
    if (part.type === 'error') throw part.error;
    if (part.type === 'finish' && finished(part.finishReason)) meta = metaOf(part);
    if (part.type === 'text-delta' && part.delta !== '') {
      // A provider that ignores max_tokens may stream without end: cut off, as a reply too large to read is.
      bytes += Buffer.byteLength(part.delta);
      if (bytes > STREAMED_TEXT_LIMIT) throw malformed(tooLarge(STREAMED_TEXT_LIMIT).message);
      text += part.delta;
      onDelta(part.delta);
    }
  };
  try {
    opened.first.forEach(take);
    for (let next = await opened.reader.read(); !next.done; next = await opened.reader.read()) take(next.value);
  } catch (error) {
    opened.reader.cancel().catch(() => {});
    throw error;
  }
  if (text === '') throw malformed('empty completion');
  // A stream that merely ended was cut short (the anthropic and google modules passed it on as done).
  if (!meta) throw malformed('the stream ended before its provider finished the answer');
  return { text, ...meta };
}
