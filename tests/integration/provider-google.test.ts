import { expect } from 'vitest';
import { resetConfigForTests } from '@/server/config';
import { describeProviderContract } from './support/providers/provider-contract';
import { fakeGeminiText, startGoogleFake } from './support/providers/protocols/google';
import { FAKE_CODE, FAKE_TRANSCRIPT } from './support/providers/protocols/media-samples';

// `google` through @ai-sdk/google against a fake Gemini API (videos: provider-videos-v1.test.ts).

process.env.PROVIDER_TIMEOUT_MS = '1500'; // a hang is cut here; room for a loaded machine's real calls
process.env.PROVIDER_MAX_RETRIES = '0';
resetConfigForTests();

describeProviderContract({
  type: 'google',
  start: async () => {
    const fake = await startGoogleFake();
    return { fake, entry: { base_url: `${fake.origin}/v1beta` } };
  },
  models: {
    'text.generate': 'gemini-2.5-flash',
    'code.generate': 'gemini-2.5-pro',
    'images.generate': 'imagen-4.0-generate-001',
    'audio.transcribe': 'gemini-3.5-transcribe',
  },
  expectText: fakeGeminiText('gemini-2.5-flash'),
  expectCode: FAKE_CODE,
  expectTranscript: FAKE_TRANSCRIPT,
  secretIn: (request) => String(request.headers['x-goog-api-key']),
  sent: {
    'text.generate': (fake) => {
      expect(fake.requests[0]!.path).toBe('/v1beta/models/gemini-2.5-flash:generateContent');
      expect(JSON.stringify(fake.requests[0]!.json.contents)).toContain('Say hi');
    },
    'images.generate': (fake) => expect(fake.requests[0]!.path).toBe('/v1beta/models/imagen-4.0-generate-001:predict'),
    'audio.transcribe': (fake) => {
      const body = fake.requests[0]!.json;
      expect(fake.requests[0]!.path).toBe('/v1beta/interactions');
      expect(body.input[0]).toMatchObject({ type: 'audio', mime_type: 'audio/wav' });
      expect(body.generation_config.transcription_config.mode.timestamp_granularities).toEqual(['word']);
    },
  },
});
