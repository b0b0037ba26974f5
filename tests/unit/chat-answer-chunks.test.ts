import { describe, expect, it } from 'vitest';
import { chatAnswer } from '@/server/http/openai/routes/chat-answer';

// A streamed chat completion's chunks as OpenAI sends them: with `stream_options.include_usage`
// every chunk carries `usage`, null in all but the last, which has the figures (SDK audit: the
// others had none, where `chunk.usage === null` is what OpenAI's reference promises).

const stored = JSON.stringify({
  completion: {
    id: 'chatcmpl-1',
    object: 'chat.completion',
    created: 1,
    model: 'text.generate',
    choices: [{ index: 0, message: { role: 'assistant', content: 'Hi', refusal: null }, logprobs: null, finish_reason: 'stop' }],
    usage: { prompt_tokens: 3, completion_tokens: 1, total_tokens: 4 },
  },
  units: { charged_units: 1, remaining_units: 9 },
});

const parsed = (chunk: string) => JSON.parse(chunk) as Record<string, unknown>;

describe('chat.completion.chunk events', () => {
  it('with include_usage: usage null in every chunk but the last', () => {
    const { chunks } = chatAnswer({ id: 'chatcmpl-1', model: 'text.generate', includeUsage: true, created: 1 });
    const all = [chunks.delta('Hi'), ...chunks.finish(stored)].map(parsed);
    expect(all.map((chunk) => chunk.usage)).toEqual([null, null, { prompt_tokens: 3, completion_tokens: 1, total_tokens: 4 }]);
  });

  it('without it: no usage member at all', () => {
    const { chunks } = chatAnswer({ id: 'chatcmpl-1', model: 'text.generate', includeUsage: false, created: 1 });
    for (const chunk of [chunks.delta('Hi'), ...chunks.finish(stored)].map(parsed)) expect(chunk).not.toHaveProperty('usage');
  });
});
