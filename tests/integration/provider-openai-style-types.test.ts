import { describe, expect } from 'vitest';
import { resetConfigForTests } from '@/server/config';
import { describeProviderContract } from './support/providers/provider-contract';
import { FAKE_CODE, FAKE_TRANSCRIPT } from './support/providers/protocols/media-samples';
import { fakeText, startOpenAiStyleFake } from './support/providers/protocols/openai-style';

// xai, groq, deepseek, mistral and azure, each through its own @ai-sdk package, against a fake
// of the OpenAI-style protocol they speak (with each one's own paths and auth header).
// xai's videos: provider-videos-v1.test.ts.

process.env.PROVIDER_TIMEOUT_MS = '1500'; // a hang is cut here; room for a loaded machine's real calls
process.env.PROVIDER_MAX_RETRIES = '0';
resetConfigForTests();

const bearer = (request: { headers: Record<string, string | string[] | undefined> }) => String(request.headers.authorization);

describe('xai', () => {
  describeProviderContract({
    type: 'xai',
    start: async () => {
      const fake = await startOpenAiStyleFake();
      return { fake, entry: { base_url: `${fake.origin}/v1` } };
    },
    models: { 'text.generate': 'grok-4', 'code.generate': 'grok-code-fast-1', 'images.generate': 'grok-2-image' },
    expectText: fakeText('grok-4'),
    expectCode: FAKE_CODE,
    secretIn: bearer,
    sent: {
      'text.generate': (fake) => expect(fake.requests[0]!.path).toBe('/v1/chat/completions'),
      'images.generate': (fake) => expect(fake.requests[0]!.path).toBe('/v1/images/generations'),
    },
  });
});

describe('groq', () => {
  describeProviderContract({
    type: 'groq',
    start: async () => {
      const fake = await startOpenAiStyleFake();
      return { fake, entry: { base_url: `${fake.origin}/openai/v1` } };
    },
    models: { 'text.generate': 'llama-3.3-70b-versatile', 'code.generate': 'openai/gpt-oss-120b', 'audio.transcribe': 'whisper-large-v3' },
    settings: { 'audio.transcribe': { languages: ['en-US'] } },
    expectText: fakeText('llama-3.3-70b-versatile'),
    expectCode: FAKE_CODE,
    expectTranscript: FAKE_TRANSCRIPT,
    secretIn: bearer,
    sent: {
      'audio.transcribe': (fake) => {
        const multipart = fake.requests[0]!.body.toString('latin1');
        expect(fake.requests[0]!.path).toBe('/openai/v1/audio/transcriptions');
        expect(multipart).toMatch(/name="language"\r\n\r\nen\r\n/);
        expect(multipart).toMatch(/name="response_format"\r\n\r\nverbose_json\r\n/);
      },
    },
  });
});

describe('deepseek', () => {
  describeProviderContract({
    type: 'deepseek',
    start: async () => {
      const fake = await startOpenAiStyleFake();
      return { fake, entry: { base_url: fake.origin } };
    },
    models: { 'text.generate': 'deepseek-chat', 'code.generate': 'deepseek-chat' },
    expectText: fakeText('deepseek-chat'),
    expectCode: FAKE_CODE,
    secretIn: bearer,
    sent: { 'text.generate': (fake) => expect(fake.requests[0]!.path).toBe('/chat/completions') },
  });
});

describe('mistral', () => {
  describeProviderContract({
    type: 'mistral',
    start: async () => {
      const fake = await startOpenAiStyleFake({ speechAsJson: true });
      return { fake, entry: { base_url: `${fake.origin}/v1` } };
    },
    models: { 'text.generate': 'mistral-large-latest', 'code.generate': 'codestral-latest', 'audio.speech': 'voxtral-mini-tts' },
    expectText: fakeText('mistral-large-latest'),
    expectCode: FAKE_CODE,
    secretIn: bearer,
    sent: { 'audio.speech': (fake) => expect(fake.requests[0]!.json).toMatchObject({ input: 'Hello there.', response_format: 'mp3' }) },
  });
});

describe('azure', () => {
  describeProviderContract({
    type: 'azure',
    start: async () => {
      const fake = await startOpenAiStyleFake();
      return { fake, entry: { base_url: `${fake.origin}/openai/v1` } };
    },
    models: {
      'text.generate': 'my-gpt-4o',
      'code.generate': 'my-gpt-4o',
      'images.generate': 'my-gpt-image-1',
      'audio.speech': 'my-tts',
      'audio.transcribe': 'my-whisper',
    },
    expectText: fakeText('my-gpt-4o'),
    expectCode: FAKE_CODE,
    expectTranscript: FAKE_TRANSCRIPT,
    secretIn: (request) => String(request.headers['api-key']),
    sent: {
      // base_url is the SDK's baseURL: on a host other than *.openai.azure.com it is used as it is.
      'text.generate': (fake) => expect(fake.requests[0]!.path).toBe('/openai/v1/chat/completions'),
      'audio.transcribe': (fake) => expect(fake.requests[0]!.path).toBe('/openai/v1/audio/transcriptions'),
    },
  });
});
