import { FAKE_PROVIDER_DIAGNOSTIC, startFakeProviderServer, type FakeProviderServer } from '../fake-protocol-server';
import { FAKE_CODE, FAKE_TRANSCRIPT, fakeVideo, mediaSamples } from './media-samples';

// Vercel AI Gateway's protocol (ai-gateway.vercel.sh/v3/ai): one POST per model kind
// (/language-model, /image-model, /speech-model, /transcription-model) naming the model in a header
// (`ai-language-model-id`, `ai-model-id`); the answer is the provider-spec (v3) result, media as base64.
// /video-model answers a server-sent event stream whose one `result` (or `error`) event carries the video.

export const fakeGatewayText = (model: string) => `gateway answer from ${model}`;

export async function startGatewayFake(): Promise<FakeProviderServer> {
  const media = await mediaSamples();
  return startFakeProviderServer(async (request, _origin, mode) => {
    if (request.method !== 'POST') return undefined;
    const model = String(request.headers['ai-language-model-id'] ?? request.headers['ai-model-id'] ?? 'unknown');
    if (request.path.endsWith('/language-model')) {
      const json = request.json?.responseFormat?.type === 'json';
      return {
        json: {
          content: [{ type: 'text', text: json ? JSON.stringify(FAKE_CODE) : fakeGatewayText(model) }],
          finishReason: { unified: 'stop', raw: 'stop' },
          usage: {
            inputTokens: { total: 5, noCache: 5, cacheRead: 0, cacheWrite: 0 },
            outputTokens: { total: 7, text: 7, reasoning: 0 },
          },
          warnings: [],
        },
      };
    }
    if (request.path.endsWith('/video-model')) {
      if (mode.kind === 'job-failed') {
        const event = { type: 'error', message: FAKE_PROVIDER_DIAGNOSTIC, errorType: 'provider_error', statusCode: 502, param: null };
        return { bytes: Buffer.from(`data: ${JSON.stringify(event)}\n\n`), contentType: 'text/event-stream' };
      }
      const videos = [{ type: 'base64', data: (await fakeVideo()).toString('base64'), mediaType: 'video/mp4' }];
      return { bytes: Buffer.from(`data: ${JSON.stringify({ type: 'result', videos })}\n\n`), contentType: 'text/event-stream' };
    }
    if (request.path.endsWith('/image-model')) return { json: { images: [media.png.toString('base64')] } };
    if (request.path.endsWith('/speech-model')) return { json: { audio: media.mp3.toString('base64') } };
    if (request.path.endsWith('/transcription-model')) {
      const segments = FAKE_TRANSCRIPT.segments.map((s) => ({ text: s.text, startSecond: s.start, endSecond: s.end }));
      return { json: { text: FAKE_TRANSCRIPT.text, segments, language: 'en', durationInSeconds: 1.25 } };
    }
    return undefined;
  });
}
