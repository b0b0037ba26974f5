import type { LanguageModelV3, LanguageModelV3StreamPart } from '@ai-sdk/provider';
import { describe, expect, it } from 'vitest';
import { streamOnce } from '@/server/providers/ai-sdk/language-model-calls';
import { ProviderUnavailableError } from '@/server/providers/engine';

// How a streamed answer of any provider module ends: finished only when its provider said why it
// stopped. A module whose stream simply stopped gives its own reason (`other`, raw undefined) or no
// finish part, which the anthropic and google modules' streams were passed on as done with (engines audit).

const usage = {
  inputTokens: { total: 5, noCache: 5, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 2, text: 2, reasoning: undefined },
};

/** A model whose doStream answers these parts. */
function modelStreaming(parts: LanguageModelV3StreamPart[]): LanguageModelV3 {
  return {
    specificationVersion: 'v3',
    provider: 'test',
    modelId: 'm',
    supportedUrls: {},
    doGenerate: () => Promise.reject(new Error('not used')),
    doStream: () =>
      Promise.resolve({
        stream: new ReadableStream<LanguageModelV3StreamPart>({
          start(controller) {
            for (const part of parts) controller.enqueue(part);
            controller.close();
          },
        }),
      }),
  };
}

const call = { prompt: { system: 's', user: 'u' }, signal: new AbortController().signal, maxRetries: 0 };
const text = (delta: string): LanguageModelV3StreamPart => ({ type: 'text-delta', id: 't', delta });

describe('a streamed answer', () => {
  it('is finished when its provider said why it stopped, or its module read why from the protocol', async () => {
    // raw undefined with `stop`: OpenAI's Responses API on a normal end (review of this change: through the gateway).
    for (const finishReason of [
      { unified: 'stop', raw: 'end_turn' },
      { unified: 'stop', raw: undefined },
    ] as const) {
      const deltas: string[] = [];
      const model = modelStreaming([text('Hello '), text('there'), { type: 'finish', usage, finishReason }]);
      const answer = await streamOnce(model, call, (delta) => deltas.push(delta));
      expect(answer).toMatchObject({ text: 'Hello there', finishReason: 'stop', usage: { inputTokens: 5, outputTokens: 2 } });
      expect(deltas).toEqual(['Hello ', 'there']);
    }
  });

  it('that merely stopped (no reason from its provider, or no finish at all) was cut short: a failure after its pieces', async () => {
    for (const ending of [
      [{ type: 'finish', usage, finishReason: { unified: 'other', raw: undefined } }],
      [],
    ] as LanguageModelV3StreamPart[][]) {
      const deltas: string[] = [];
      const failure = await streamOnce(modelStreaming([text('Hello '), ...ending]), call, (delta) => deltas.push(delta)).catch(
        (error: unknown) => error,
      );
      expect(failure).toBeInstanceOf(ProviderUnavailableError);
      expect(failure).toMatchObject({ kind: 'malformed', message: 'the stream ended before its provider finished the answer' });
      expect(deltas).toEqual(['Hello ']); // delivered: the caller charges it as an interrupted answer
    }
  });
});
