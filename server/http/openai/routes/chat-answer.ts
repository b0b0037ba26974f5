import type { GenerationResult } from '../../../domain/billing/reservation';
import { baseHeaders, jsonResponse } from '../../responses';
import { unitHeaders } from '../openai-headers';
import type { ApiError } from '../../../domain/errors';
import { errorChunk, type ChunkStream } from '../openai-stream';
import type { ChatUsage } from './chat-tokens';

// A chat completion as OpenAI answers it: the `chat.completion` object, or the same as
// `chat.completion.chunk` events. What the call stores (and its replays answer) is the completion
// with the units it charged; a replay asked as a stream gets the stored completion as one piece,
// under the stored completion's id, as a JSON replay does.

/** OpenAI's finish reasons, by the AI SDK's unified ones; any other (an error, 'other', none: `local`) is 'stop'. */
const FINISH_REASONS: Record<string, ChatFinishReason> = { length: 'length', 'content-filter': 'content_filter' };
type ChatFinishReason = 'stop' | 'length' | 'content_filter';

export const chatFinishReason = (unified: string | undefined): ChatFinishReason => (unified && FINISH_REASONS[unified]) || 'stop';

export interface ChatCompletion {
  id: string;
  object: 'chat.completion';
  created: number;
  model: string;
  choices: { index: 0; message: { role: 'assistant'; content: string; refusal: null }; logprobs: null; finish_reason: ChatFinishReason }[];
  usage: ChatUsage;
}

interface StoredChat {
  completion: ChatCompletion;
  units: GenerationResult['usage'];
}

/** The answer's text: a text model's as it is; a code model's code, fenced, then its explanation. */
function contentOf(output: unknown): string {
  const { text, code, explanation } = output as { text?: string; code?: string; explanation?: string };
  if (text !== undefined) return text;
  return `\`\`\`\n${code ?? ''}\n\`\`\`\n\n${explanation ?? ''}`;
}

export function chatAnswer(call: { id: string; model: string; includeUsage: boolean; created?: number }) {
  const created = call.created ?? Math.floor(Date.now() / 1000);
  // With include_usage every chunk carries `usage`, null but in the last one (OpenAI's reference; SDK audit).
  const noUsage = call.includeUsage ? { usage: null } : {};
  const chunk = (choices: unknown[], extra: Record<string, unknown> = noUsage) =>
    JSON.stringify({ id: call.id, object: 'chat.completion.chunk', created, model: call.model, choices, ...extra });
  let first = true;
  const chunks: ChunkStream = {
    delta(text) {
      const delta = first ? { role: 'assistant', content: text } : { content: text };
      first = false;
      return chunk([{ index: 0, delta, logprobs: null, finish_reason: null }]);
    },
    finish(stored) {
      const { completion } = JSON.parse(stored) as StoredChat;
      const done = chunk([{ index: 0, delta: {}, logprobs: null, finish_reason: completion.choices[0]!.finish_reason }]);
      return call.includeUsage ? [done, chunk([], { usage: completion.usage })] : [done];
    },
  };
  return {
    chunks,
    /** `usage` and `finishReason` are read once the call has answered. */
    render: (usage: () => ChatUsage, finishReason: () => ChatFinishReason) => (result: GenerationResult) => {
      const message = { role: 'assistant' as const, content: contentOf(result.output), refusal: null };
      const completion: ChatCompletion = {
        id: call.id,
        object: 'chat.completion',
        created,
        model: call.model,
        choices: [{ index: 0, message, logprobs: null, finish_reason: finishReason() }],
        usage: usage(),
      };
      return JSON.stringify({ completion, units: result.usage } satisfies StoredChat);
    },
    /**
     * The stored completion as JSON, or as events when the request asked for a stream: what a charged
     * stream delivered ends again with the error it `ended` with.
     */
    respond(stored: string, requestId: string, streamed: boolean, ended?: ApiError): Response {
      const { completion, units } = JSON.parse(stored) as StoredChat;
      if (!streamed) return jsonResponse(200, completion, requestId, unitHeaders(units));
      const { id, model, created } = completion;
      const replayed = chatAnswer({ id, model, created, includeUsage: call.includeUsage }).chunks;
      const text = replayed.delta(completion.choices[0]!.message.content);
      const pieces = ended ? [text, errorChunk(ended)] : [text, ...replayed.finish(stored), '[DONE]'];
      const headers = baseHeaders(requestId, unitHeaders(units));
      headers.set('Content-Type', 'text/event-stream; charset=utf-8');
      return new Response(pieces.map((data) => `data: ${data}\n\n`).join(''), { status: 200, headers });
    },
  };
}
