import { expect } from 'vitest';
import { resetConfigForTests } from '@/server/config';
import { describeProviderContract } from './support/providers/provider-contract';
import { startElevenLabsFake } from './support/providers/protocols/elevenlabs';
import { FAKE_TRANSCRIPT } from './support/providers/protocols/media-samples';

// `elevenlabs` through @ai-sdk/elevenlabs, whose SDK takes no baseURL: base_url replaces the origin.

process.env.PROVIDER_TIMEOUT_MS = '1500'; // a hang is cut here; room for a loaded machine's real calls
process.env.PROVIDER_MAX_RETRIES = '0';
resetConfigForTests();

describeProviderContract({
  type: 'elevenlabs',
  start: async () => {
    const fake = await startElevenLabsFake();
    return { fake, entry: { base_url: fake.origin } };
  },
  models: { 'audio.speech': 'eleven_flash_v2_5', 'audio.transcribe': 'scribe_v1' },
  settings: { 'audio.speech': { voices: ['21m00Tcm4TlvDq8ikWAM'], languages: ['en', 'de'] } },
  expectTranscript: FAKE_TRANSCRIPT,
  secretIn: (request) => String(request.headers['xi-api-key']),
  sent: {
    'audio.speech': (fake) => {
      const request = fake.requests[0]!;
      expect(request.path).toBe('/v1/text-to-speech/21m00Tcm4TlvDq8ikWAM');
      expect(request.query.get('output_format')).toBe('mp3_44100_128');
      expect(request.json).toMatchObject({ text: 'Hello there.', model_id: 'eleven_flash_v2_5', language_code: 'en' });
    },
    'audio.transcribe': (fake) => {
      const multipart = fake.requests[0]!.body.toString('latin1');
      expect(multipart).toMatch(/name="model_id"\r\n\r\nscribe_v1/);
      expect(multipart).toContain('RIFF');
    },
  },
});
