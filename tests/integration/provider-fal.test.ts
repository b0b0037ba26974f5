import { expect } from 'vitest';
import { resetConfigForTests } from '@/server/config';
import { describeProviderContract } from './support/providers/provider-contract';
import { startFalFake } from './support/providers/protocols/fal';
import { FAKE_TRANSCRIPT } from './support/providers/protocols/media-samples';

// `fal` through @ai-sdk/fal: base_url replaces fal.run and queue.fal.run (videos: provider-videos-v1.test.ts).

process.env.PROVIDER_TIMEOUT_MS = '1500'; // a hang is cut here; room for a loaded machine's real calls
process.env.PROVIDER_MAX_RETRIES = '0';
resetConfigForTests();

describeProviderContract({
  type: 'fal',
  start: async () => {
    const fake = await startFalFake();
    return { fake, entry: { base_url: fake.origin } };
  },
  models: { 'images.generate': 'fal-ai/flux/schnell', 'audio.speech': 'fal-ai/minimax/speech-02-hd', 'audio.transcribe': 'whisper' },
  settings: { 'audio.speech': { output_formats: ['mp3'] } },
  expectTranscript: FAKE_TRANSCRIPT,
  secretIn: (request) => request.headers.authorization,
  sent: {
    'images.generate': (fake) => {
      expect(fake.requests[0]!.path).toBe('/fal-ai/flux/schnell');
      expect(fake.requests[0]!.json).toMatchObject({ prompt: 'a lighthouse', output_format: 'png' });
      expect(fake.requests[1]!.path).toBe('/files/image.png');
    },
    'audio.speech': (fake) => expect(fake.requests[0]!.json).toMatchObject({ text: 'Hello there.', output_format: 'url' }),
    'audio.transcribe': (fake) => {
      expect(fake.requests[0]!.path).toBe('/fal-ai/whisper');
      expect(fake.requests[0]!.json.audio_url).toMatch(/^data:audio\/wav;base64,UklGR/);
      expect(fake.requests[1]!.path).toBe('/fal-ai/whisper/requests/req-fake-1');
    },
  },
});
