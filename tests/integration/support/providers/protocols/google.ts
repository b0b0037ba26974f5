import { startFakeProviderServer, type FakeProviderServer } from '../fake-protocol-server';
import { FAKE_CODE, FAKE_TRANSCRIPT, mediaSamples } from './media-samples';

// The Gemini API (generativelanguage.googleapis.com/v1beta): models/{m}:generateContent for
// text (a JSON answer when responseMimeType asks it), models/{m}:predict for Imagen, and the
// Interactions API (POST /interactions) for transcription with word_info annotations.

export const fakeGeminiText = (model: string) => `gemini answer from ${model}`;

export async function startGoogleFake(): Promise<FakeProviderServer> {
  const media = await mediaSamples();
  return startFakeProviderServer((request) => {
    if (request.method !== 'POST') return undefined;
    const generate = /\/models\/([^/:]+):generateContent$/.exec(request.path);
    if (generate) {
      const json = request.json?.generationConfig?.responseMimeType === 'application/json';
      const text = json ? JSON.stringify(FAKE_CODE) : fakeGeminiText(generate[1]!);
      return {
        json: {
          candidates: [{ content: { role: 'model', parts: [{ text }] }, finishReason: 'STOP', index: 0 }],
          usageMetadata: { promptTokenCount: 5, candidatesTokenCount: 7, totalTokenCount: 12 },
          modelVersion: generate[1],
        },
      };
    }
    if (/\/models\/[^/:]+:predict$/.test(request.path)) {
      return { json: { predictions: [{ bytesBase64Encoded: media.png.toString('base64'), mimeType: 'image/png' }] } };
    }
    if (request.path.endsWith('/interactions')) {
      const annotations = FAKE_TRANSCRIPT.segments.map((s) => ({
        type: 'word_info',
        text: s.text,
        start_offset: `${s.start}s`,
        end_offset: `${s.end}s`,
      }));
      return {
        json: {
          status: 'completed',
          steps: [{ type: 'model_output', content: [{ type: 'text', text: FAKE_TRANSCRIPT.text, annotations }] }],
        },
      };
    }
    return undefined;
  });
}
