import { expect } from 'vitest';
import { resetConfigForTests } from '@/server/config';
import { describeProviderContract } from './support/providers/provider-contract';
import { startDeepgramFake } from './support/providers/protocols/deepgram';
import { FAKE_TRANSCRIPT } from './support/providers/protocols/media-samples';

// `deepgram` through @ai-sdk/deepgram, whose SDK takes no baseURL: base_url replaces the origin.

process.env.PROVIDER_TIMEOUT_MS = '1500'; // a hang is cut here; room for a loaded machine's real calls
process.env.PROVIDER_MAX_RETRIES = '0';
resetConfigForTests();

describeProviderContract({
  type: 'deepgram',
  start: async () => {
    const fake = await startDeepgramFake();
    return { fake, entry: { base_url: fake.origin } };
  },
  models: { 'audio.speech': 'aura-2-thalia-en', 'audio.transcribe': 'nova-3' },
  settings: { 'audio.transcribe': { languages: ['en', 'en-US'] } },
  expectTranscript: FAKE_TRANSCRIPT,
  secretIn: (request) => request.headers.authorization,
  sent: {
    'audio.speech': (fake) => {
      const request = fake.requests[0]!;
      expect(request.path).toBe('/v1/speak');
      expect(request.query.get('model')).toBe('aura-2-thalia-en');
      expect(request.query.get('encoding')).toBe('mp3');
      expect(request.json).toEqual({ text: 'Hello there.' });
    },
    'audio.transcribe': (fake) => {
      const request = fake.requests[0]!;
      expect(request.path).toBe('/v1/listen');
      expect(request.query.get('model')).toBe('nova-3');
      expect(request.body.subarray(0, 4).toString()).toBe('RIFF');
    },
  },
});
