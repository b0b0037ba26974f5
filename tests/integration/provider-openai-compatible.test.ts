import { expect } from 'vitest';
import { resetConfigForTests } from '@/server/config';
import { describeProviderContract } from './support/providers/provider-contract';
import { FAKE_CODE } from './support/providers/protocols/media-samples';
import { fakeText, startOpenAiStyleFake } from './support/providers/protocols/openai-style';

// `openai-compatible` (vLLM, Ollama, OpenRouter, ...) through @ai-sdk/openai-compatible.

process.env.PROVIDER_TIMEOUT_MS = '1500'; // a hang is cut here; room for a loaded machine's real calls
process.env.PROVIDER_MAX_RETRIES = '0';
resetConfigForTests();

describeProviderContract({
  type: 'openai-compatible',
  start: async () => {
    const fake = await startOpenAiStyleFake();
    return { fake, entry: { base_url: `${fake.origin}/v1` } };
  },
  models: { 'text.generate': 'llama-3.3-70b', 'code.generate': 'qwen-coder', 'images.generate': 'flux-schnell' },
  expectText: fakeText('llama-3.3-70b'),
  expectCode: FAKE_CODE,
  secretIn: (request) => request.headers.authorization,
  sent: {
    'text.generate': (fake) => {
      const body = fake.requests[0]!.json;
      expect(fake.requests[0]!.path).toBe('/v1/chat/completions');
      expect(body.model).toBe('llama-3.3-70b');
      expect(JSON.stringify(body.messages)).toContain('Say hi');
    },
    'code.generate': (fake) => expect(fake.requests[0]!.json.response_format.type).toMatch(/^json_/),
    'images.generate': (fake) => {
      expect(fake.requests[0]!.path).toBe('/v1/images/generations');
      expect(fake.requests[0]!.json).toMatchObject({ model: 'flux-schnell', prompt: 'a lighthouse', n: 1 });
    },
  },
});
