import { expect } from 'vitest';
import { resetConfigForTests } from '@/server/config';
import { describeProviderContract } from './support/providers/provider-contract';
import { fakeGatewayText, startGatewayFake } from './support/providers/protocols/gateway';
import { FAKE_CODE, FAKE_TRANSCRIPT } from './support/providers/protocols/media-samples';

// `gateway` (Vercel AI Gateway) through @ai-sdk/gateway against a fake of its protocol (videos: provider-videos-v1.test.ts).

process.env.PROVIDER_TIMEOUT_MS = '1500'; // a hang is cut here; room for a loaded machine's real calls
process.env.PROVIDER_MAX_RETRIES = '0';
resetConfigForTests();

describeProviderContract({
  type: 'gateway',
  start: async () => {
    const fake = await startGatewayFake();
    return { fake, entry: { base_url: `${fake.origin}/v3/ai` } };
  },
  models: {
    'text.generate': 'anthropic/claude-haiku-4.5',
    'code.generate': 'openai/gpt-5-mini',
    'images.generate': 'google/imagen-4.0-generate-001',
    'audio.speech': 'openai/gpt-4o-mini-tts',
    'audio.transcribe': 'openai/whisper-1',
  },
  expectText: fakeGatewayText('anthropic/claude-haiku-4.5'),
  expectCode: FAKE_CODE,
  expectTranscript: FAKE_TRANSCRIPT,
  secretIn: (request) => request.headers.authorization,
  sent: {
    'text.generate': (fake) => {
      expect(fake.requests[0]!.path).toBe('/v3/ai/language-model');
      expect(JSON.stringify(fake.requests[0]!.json.prompt)).toContain('Say hi');
    },
    'audio.speech': (fake) => expect(fake.requests[0]!.json).toMatchObject({ text: 'Hello there.', outputFormat: 'mp3' }),
    'audio.transcribe': (fake) => expect(fake.requests[0]!.json.mediaType).toBe('audio/wav'),
  },
});
