import { FAKE_PROVIDER_DIAGNOSTIC, startFakeProviderServer, type FakeProviderServer } from '../fake-protocol-server';
import { FAKE_CODE, FAKE_TRANSCRIPT, fakeVideo, mediaSamples } from './media-samples';

// The Gemini API (generativelanguage.googleapis.com/v1beta): models/{m}:generateContent for
// text (a JSON answer when responseMimeType asks it), models/{m}:predict for Imagen, the
// Interactions API (POST /interactions) for transcription with word_info annotations, and Veo:
// models/{m}:predictLongRunning answers a pending operation, GET {operation name} the finished
// one naming the video's file URI (or its error), GET files/{id}:download the MP4 (the API key in the query).

export const fakeGeminiText = (model: string) => `gemini answer from ${model}`;

export async function startGoogleFake(): Promise<FakeProviderServer> {
  const media = await mediaSamples();
  return startFakeProviderServer(async (request, origin, mode) => {
    if (request.method === 'GET' && request.path.endsWith('/files/vid-fake-1:download')) {
      return { bytes: await fakeVideo(), contentType: 'video/mp4' };
    }
    const operation = /\/(models\/[^/:]+\/operations\/op-fake-1)$/.exec(request.path);
    if (request.method === 'GET' && operation && mode.kind === 'job-pending') return { json: { name: operation[1], done: false } };
    if (request.method === 'GET' && operation && mode.kind === 'job-failed') {
      return { json: { name: operation[1], done: true, error: { code: 13, message: FAKE_PROVIDER_DIAGNOSTIC, status: 'INTERNAL' } } };
    }
    if (request.method === 'GET' && operation) {
      const video = { uri: `${origin}/v1beta/files/vid-fake-1:download?alt=media` };
      const response = { '@type': 'type.googleapis.com/google.ai.generativelanguage.v1beta.PredictLongRunningResponse' };
      return {
        json: { name: operation[1], done: true, response: { ...response, generateVideoResponse: { generatedSamples: [{ video }] } } },
      };
    }
    if (request.method !== 'POST') return undefined;
    const longRunning = /\/models\/([^/:]+):predictLongRunning$/.exec(request.path);
    if (longRunning) return { json: { name: `models/${longRunning[1]}/operations/op-fake-1` } };
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
