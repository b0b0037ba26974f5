import { startFakeProviderServer, type FakeProviderServer } from '../fake-protocol-server';
import { FAKE_TRANSCRIPT, mediaSamples } from './media-samples';

// Deepgram (api.deepgram.com): POST /v1/speak?model=...&encoding=... answers the audio bytes;
// POST /v1/listen?model=... (the audio as the body) answers channels of alternatives with words.

export async function startDeepgramFake(): Promise<FakeProviderServer> {
  const media = await mediaSamples();
  return startFakeProviderServer((request) => {
    if (request.method !== 'POST') return undefined;
    if (request.path === '/v1/speak') {
      return request.query.get('container') === 'wav'
        ? { bytes: media.wav, contentType: 'audio/wav' }
        : { bytes: media.mp3, contentType: 'audio/mpeg' };
    }
    if (request.path === '/v1/listen') {
      const words = FAKE_TRANSCRIPT.segments.map((s) => ({ word: s.text, start: s.start, end: s.end, confidence: 0.99 }));
      return {
        json: {
          metadata: { request_id: 'fake', duration: 1.25, channels: 1 },
          results: {
            channels: [{ detected_language: 'en', alternatives: [{ transcript: FAKE_TRANSCRIPT.text, confidence: 0.99, words }] }],
          },
        },
      };
    }
    return undefined;
  });
}
