import type { LanguageModelV3, LanguageModelV3CallOptions } from '@ai-sdk/provider';
import { APICallError } from 'ai';
import { describe, expect, it } from 'vitest';
import { AiSdkEngine } from '@/server/providers/ai-sdk/ai-sdk-engine';
import type { ProviderModule } from '@/server/providers/ai-sdk/provider-module';
import { ProviderUnavailableError } from '@/server/providers/engine';

// Text and code through the language model's doGenerate: what the model is asked (prompt,
// response format, maxOutputTokens), what the engine returns (output, finish reason, usage), and
// that a retryable failure is attempted again by the gate, a refusal not.

function stubModel(answers: (string | Error)[]) {
  const calls: LanguageModelV3CallOptions[] = [];
  const model: LanguageModelV3 = {
    specificationVersion: 'v3',
    provider: 'stub',
    modelId: 'stub-model',
    supportedUrls: {},
    doGenerate: async (options) => {
      calls.push(options);
      const answer = answers[Math.min(calls.length - 1, answers.length - 1)]!;
      if (answer instanceof Error) throw answer;
      return {
        content: [{ type: 'text', text: answer }],
        finishReason: { unified: 'stop', raw: 'stop' },
        usage: {
          inputTokens: { total: 11, noCache: 11, cacheRead: 0, cacheWrite: 0 },
          outputTokens: { total: 7, text: 7, reasoning: 0 },
        },
        warnings: [],
      };
    },
    doStream: () => Promise.reject(new Error('not used')),
  };
  return { model, calls };
}

function engineWith(model: LanguageModelV3, module: Partial<ProviderModule> = {}, maxRetries = 0) {
  return new AiSdkEngine(
    {
      name: 'stub',
      module: { create: () => ({}), ...module },
      models: { languageModel: () => model },
      apiKey: 'k',
      maxRetries,
      fetch: globalThis.fetch,
    },
    'stub-model',
  );
}

const httpError = (statusCode: number) =>
  new APICallError({
    message: 'x',
    url: 'http://127.0.0.1:9',
    requestBodyValues: {},
    statusCode,
    responseHeaders: { 'retry-after-ms': '1' },
  });
const signal = () => AbortSignal.timeout(10_000);

describe('text and code through doGenerate', () => {
  it('text: the prompt, maxOutputTokens when set, and the finish reason and usage on the result', async () => {
    const { model, calls } = stubModel(['hello']);
    const engine = engineWith(model);
    const result = await engine.generateText({ input: 'Say hi', context: 'Be brief', outputFormat: 'text', maxOutputTokens: 64 }, signal());
    expect(result).toEqual({ text: 'hello', finishReason: 'stop', usage: { inputTokens: 11, outputTokens: 7, cachedInputTokens: 0 } });
    expect(calls[0]!.maxOutputTokens).toBe(64);
    expect(calls[0]!.responseFormat).toBeUndefined();
    expect(calls[0]!.prompt).toEqual([
      { role: 'system', content: 'Answer in plain text without markdown.' },
      { role: 'user', content: [{ type: 'text', text: 'Context:\nBe brief\n\nInput:\nSay hi' }] },
    ]);
    await engine.generateText({ input: 'x', outputFormat: 'text' }, signal());
    expect('maxOutputTokens' in calls[1]!).toBe(false);
  });

  it("code: a JSON schema by default, plain JSON mode for a 'json-mode' type; the object checked", async () => {
    const answer = JSON.stringify({ code: 'x = 1', explanation: 'one' });
    const schema = stubModel([answer]);
    expect(await engineWith(schema.model).generateCode({ input: 'x', requirements: [], maxOutputTokens: 9 }, signal())).toMatchObject({
      code: 'x = 1',
      explanation: 'one',
      usage: { outputTokens: 7 },
    });
    expect(schema.calls[0]!.responseFormat).toMatchObject({ type: 'json', name: 'code_answer', schema: { type: 'object' } });
    expect(schema.calls[0]!.maxOutputTokens).toBe(9);

    const plain = stubModel([answer, '{"code": "x"}']);
    const engine = engineWith(plain.model, { codeOutput: 'json-mode' });
    await engine.generateCode({ input: 'x', requirements: [] }, signal());
    expect(plain.calls[0]!.responseFormat).toEqual({ type: 'json' });
    const error = await engine.generateCode({ input: 'x', requirements: [] }, signal()).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ProviderUnavailableError);
    expect((error as ProviderUnavailableError).kind).toBe('malformed');
  });

  it('a 503 is attempted again (PROVIDER_MAX_RETRIES), a 401 is not and is not_configured', async () => {
    const flaky = stubModel([httpError(503), 'fine']);
    expect((await engineWith(flaky.model, {}, 1).generateText({ input: 'x', outputFormat: 'text' }, signal())).text).toBe('fine');
    expect(flaky.calls).toHaveLength(2);

    const refused = stubModel([httpError(401)]);
    const error = await engineWith(refused.model, {}, 2)
      .generateText({ input: 'x', outputFormat: 'text' }, signal())
      .catch((e: unknown) => e);
    expect(refused.calls).toHaveLength(1);
    expect((error as ProviderUnavailableError).kind).toBe('not_configured');
  });
});
