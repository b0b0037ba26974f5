import { startFakeProviderServer, type FakeProviderServer } from '../fake-protocol-server';
import { FAKE_TRANSCRIPT, mediaSamples } from './media-samples';

// ElevenLabs (api.elevenlabs.io): POST /v1/text-to-speech/{voice_id}?output_format=... answers
// the audio bytes; POST /v1/speech-to-text (multipart) answers words with their times.

export async function startElevenLabsFake(): Promise<FakeProviderServer> {
  const media = await mediaSamples();
  return startFakeProviderServer((request) => {
    if (request.method !== 'POST') return undefined;
    if (/^\/v1\/text-to-speech\/[^/]+$/.test(request.path)) {
      const wav = request.query.get('output_format')?.startsWith('wav');
      return wav ? { bytes: media.wav, contentType: 'audio/wav' } : { bytes: media.mp3, contentType: 'audio/mpeg' };
    }
    if (request.path === '/v1/speech-to-text') {
      const words = FAKE_TRANSCRIPT.segments.flatMap((s) => [
        { text: s.text, type: 'word', start: s.start, end: s.end, speaker_id: 'speaker_0' },
        { text: ' ', type: 'spacing', start: s.end, end: s.end },
      ]);
      return { json: { language_code: 'eng', language_probability: 0.98, text: FAKE_TRANSCRIPT.text, words } };
    }
    return undefined;
  });
}
