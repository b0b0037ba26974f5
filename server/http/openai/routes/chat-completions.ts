import type { Prepared } from '../../../domain/generation/text-and-code';
import type { EngineReport } from '../../../domain/generation/call-engine';
import type { CodeTask, TextTask } from '../../../providers/engine';
import type { Outcome, RouteContext } from '../../route-context';
import { codeGenerateRoute, textGenerateRoute } from '../../routes/text-and-code';
import type { ApiError } from '../../../domain/errors';
import { refuseParam } from '../openai-errors';
import { resolveModel } from '../openai-models';
import { OpenAIParams } from '../openai-params';
import { readJsonBody } from '../openai-request';
import { defineOpenAIPostRoute, parseV1Body, type Translation } from '../openai-route';
import { chatPrompt, promptChars, type ChatPrompt } from './chat-messages';
import { chatAnswer, chatFinishReason } from './chat-answer';
import { chatUsageOf, withTokenEstimate } from './chat-tokens';

// POST /openai/v1/chat/completions: text.generate or code.generate, by model, as their /v1 routes
// run them; `stream: true` answers chat.completion.chunk events (text.generate live, code.generate
// once its answer is whole).

interface ChatRequest {
  model: { id: string; operation: 'text.generate' | 'code.generate' };
  prompt: ChatPrompt;
  maxTokens?: number;
  temperature?: number;
  format: 'text' | 'json' | undefined;
  stream: boolean;
  includeUsage: boolean;
}

/**
 * The output format asked for, as /v1's `output_format`: `text` is asked for as surely as JSON is
 * (served the package's default instead, a key on `["json"]` got JSON for it: settings audit);
 * none, the package's default.
 */
function responseFormatOf(value: unknown): 'text' | 'json' | undefined {
  if (value === undefined) return undefined;
  const type = (value as { type?: unknown } | null)?.type;
  if (type === 'text') return 'text';
  if (type === 'json_object') return 'json';
  throw refuseParam(
    'response_format',
    'response_format: only {"type": "text"} and {"type": "json_object"} are supported.',
    'unsupported_value',
  );
}

function includeUsageOf(value: unknown, stream: boolean): boolean {
  if (value === undefined) return false;
  if (!stream) throw refuseParam('stream_options', 'stream_options is only allowed with stream: true.', 'invalid_value');
  const { include_usage, ...rest } = (value ?? {}) as { include_usage?: unknown };
  const extra = Object.keys(rest)[0];
  if (extra) throw refuseParam(`stream_options.${extra}`, `stream_options.${extra} is not supported.`);
  if (include_usage !== undefined && typeof include_usage !== 'boolean') {
    throw refuseParam('stream_options.include_usage', 'stream_options.include_usage must be true or false.', 'invalid_type');
  }
  return include_usage === true;
}

/** `max_completion_tokens`, or the older `max_tokens`: both may come, if they agree (else which was meant?). */
function tokenCap(params: OpenAIParams): number | undefined {
  const completion = params.number('max_completion_tokens', 1, 1_000_000, true);
  const legacy = params.number('max_tokens', 1, 1_000_000, true);
  if (completion !== undefined && legacy !== undefined && completion !== legacy) {
    throw refuseParam('max_tokens', 'max_tokens and max_completion_tokens differ: send one of them.', 'invalid_value');
  }
  return completion ?? legacy;
}

function readChat(body: Record<string, unknown>, ctx: RouteContext): ChatRequest {
  const params = new OpenAIParams(body);
  const model = resolveModel(ctx.key, params.optional('model'), ['text.generate', 'code.generate']) as ChatRequest['model'];
  const prompt = chatPrompt(params.optional('messages'));
  const maxTokens = tokenCap(params);
  const temperature = params.number('temperature', 0, 2);
  const format = responseFormatOf(params.optional('response_format'));
  const stream = params.boolean('stream') ?? false;
  const includeUsage = includeUsageOf(params.optional('stream_options'), stream);
  params.onlyDefault('n', [1]);
  params.done();
  if (model.operation === 'code.generate' && format === 'json') {
    throw refuseParam('response_format', 'response_format: a code model answers code and its explanation, not JSON.', 'unsupported_value');
  }
  if (model.operation === 'code.generate' && temperature !== undefined) {
    throw refuseParam('temperature', 'temperature is not supported by code models.');
  }
  return { model, prompt, maxTokens, temperature, format, stream, includeUsage };
}

/** The package's cap, or the request's where it is lower. */
const capped = (cap: number | undefined, asked: number | undefined) => (asked === undefined ? cap : Math.min(cap ?? asked, asked));

/** The /v1 run (and stream) with the call's token usage filled in before it settles. */
function metered<F extends (...args: never[]) => Promise<Outcome>>(step: F, chars: number, seen: { engines?: EngineReport }): F {
  return (async (...args: Parameters<F>) => {
    const outcome = await step(...args);
    if (outcome.kind === 'generation') {
      const output = outcome.output as { text?: string; code?: string; explanation?: string };
      const answered = (output.text ?? '').length + (output.code ?? '').length + (output.explanation ?? '').length;
      withTokenEstimate(outcome.engines, chars, answered);
      seen.engines = outcome.engines;
    }
    return outcome;
  }) as F;
}

function translateChat(body: Record<string, unknown>, ctx: RouteContext): Translation<unknown> {
  const chat = readChat(body, ctx);
  const seen: { engines?: EngineReport } = {};
  const chars = promptChars(chat.prompt);
  const answer = chatAnswer({ id: `chatcmpl-${ctx.requestId.slice(4)}`, model: chat.model.id, includeUsage: chat.includeUsage });
  const shared = {
    fingerprinted: body,
    params: { input: 'messages', context: 'messages', output_format: 'response_format' },
    render: answer.render(
      () => chatUsageOf(seen.engines),
      () => chatFinishReason(seen.engines?.finishReason),
    ),
    respond: (stored: string, _ctx: RouteContext, ended?: ApiError) => answer.respond(stored, ctx.requestId, chat.stream, ended),
  };
  if (chat.model.operation === 'text.generate') {
    const steps = textGenerateRoute.steps;
    const v1Body = { input: chat.prompt.input, context: chat.prompt.context, output_format: chat.format };
    return {
      ...shared,
      steps: { ...steps, run: metered(steps.run, chars, seen), stream: metered(steps.stream!, chars, seen) },
      chunks: chat.stream ? answer.chunks : undefined,
      prepare: async (ctx) => {
        const prepared: Prepared<TextTask> = await steps.prepare(parseV1Body(steps.schema, v1Body), ctx);
        prepared.task.maxOutputTokens = capped(prepared.task.maxOutputTokens, chat.maxTokens);
        if (chat.temperature !== undefined) prepared.task.temperature = chat.temperature;
        return prepared;
      },
    } satisfies Translation<Prepared<TextTask>> as unknown as Translation<unknown>;
  }
  const steps = codeGenerateRoute.steps;
  const input = chat.prompt.context ? `${chat.prompt.context}\n\n${chat.prompt.input}` : chat.prompt.input;
  return {
    ...shared,
    steps: { ...steps, run: metered(steps.run, chars, seen) },
    streamsWhole: chat.stream,
    prepare: async (ctx) => {
      const prepared: Prepared<CodeTask> = await steps.prepare(parseV1Body(steps.schema, { input }), ctx);
      prepared.task.maxOutputTokens = capped(prepared.task.maxOutputTokens, chat.maxTokens);
      return prepared;
    },
  } satisfies Translation<Prepared<CodeTask>> as unknown as Translation<unknown>;
}

export const chatCompletionsRoute = defineOpenAIPostRoute({
  path: '/openai/v1/chat/completions',
  operationId: 'createChatCompletion',
  operation: 'chat.completions',
  sells: ['text.generate', 'code.generate'],
  summary: 'Create a chat completion (text.generate or code.generate, by model)',
  read: (request) => readJsonBody(request),
  translate: translateChat,
});
