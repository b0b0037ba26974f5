import { expect } from 'vitest';
import { resetConfigForTests } from '@/server/config';
import { describeProviderContract } from './support/providers/provider-contract';
import { fakeClaudeText, startAnthropicFake } from './support/providers/protocols/anthropic';
import { FAKE_CODE } from './support/providers/protocols/media-samples';

// `anthropic` through @ai-sdk/anthropic against a fake Messages API.

process.env.PROVIDER_TIMEOUT_MS = '1500'; // a hang is cut here; room for a loaded machine's real calls
process.env.PROVIDER_MAX_RETRIES = '0';
resetConfigForTests();

describeProviderContract({
  type: 'anthropic',
  start: async () => {
    const fake = await startAnthropicFake();
    return { fake, entry: { base_url: `${fake.origin}/v1` } };
  },
  models: { 'text.generate': 'claude-haiku-4-5', 'code.generate': 'claude-sonnet-4-5' },
  expectText: fakeClaudeText('claude-haiku-4-5'),
  expectCode: FAKE_CODE,
  secretIn: (request) => String(request.headers['x-api-key']),
  sent: {
    'text.generate': (fake) => {
      const request = fake.requests[0]!;
      expect(request.path).toBe('/v1/messages');
      expect(request.headers['anthropic-version']).toBeDefined();
      expect(request.json.model).toBe('claude-haiku-4-5');
      expect(JSON.stringify(request.json.system)).toContain('plain text');
      expect(JSON.stringify(request.json.messages)).toContain('Say hi');
    },
    'code.generate': (fake) => {
      // claude-sonnet-4-5 takes Anthropic's native structured output: a JSON schema of {code, explanation}.
      expect(JSON.stringify(fake.requests[0]!.json.output_config)).toContain('explanation');
    },
  },
});
