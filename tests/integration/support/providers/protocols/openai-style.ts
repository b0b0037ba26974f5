import { FAKE_PROVIDER_DIAGNOSTIC, startFakeProviderServer, type FakeProviderServer, type FakeRequest } from '../fake-protocol-server';
import { FAKE_CODE, FAKE_TRANSCRIPT, fakeVideo, mediaSamples } from './media-samples';

// The OpenAI wire protocol as openai-compatible servers, xAI, Groq, DeepSeek, Azure OpenAI and
// Mistral speak it (routes matched by their suffix, whatever prefix the provider puts first):
// chat completions (JSON mode answers the code object), images as b64_json, speech as bytes,
// transcriptions as verbose JSON. Mistral answers speech as JSON ({audio_data: base64}). xAI's
// videos: POST /videos/generations answers a request_id, GET /videos/{id} the finished video's URL (or
// `failed`).

export const fakeText = (model: string) => `fake answer from ${model}`;

function completion(model: string, content: string) {
  return {
    id: 'chatcmpl-fake',
    object: 'chat.completion',
    created: Math.floor(Date.now() / 1000),
    model,
    choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }],
    usage: { prompt_tokens: 5, completion_tokens: 7, total_tokens: 12 },
  };
}

export function wantsJson(request: FakeRequest): boolean {
  const type = request.json?.response_format?.type;
  return type === 'json_object' || type === 'json_schema';
}

export async function startOpenAiStyleFake(options: { speechAsJson?: boolean } = {}): Promise<FakeProviderServer> {
  const media = await mediaSamples();
  return startFakeProviderServer(async (request, origin, mode) => {
    if (request.method === 'GET' && request.path === '/files/video.mp4') return { bytes: await fakeVideo(), contentType: 'video/mp4' };
    if (request.method === 'GET' && request.path.endsWith('/videos/xvid-fake-1') && mode.kind === 'job-pending') {
      return { json: { status: 'pending' } };
    }
    if (request.method === 'GET' && request.path.endsWith('/videos/xvid-fake-1') && mode.kind === 'job-failed') {
      return { json: { status: 'failed', error: { code: 'internal_error', message: FAKE_PROVIDER_DIAGNOSTIC } } };
    }
    if (request.method === 'GET' && request.path.endsWith('/videos/xvid-fake-1')) {
      return { json: { status: 'done', video: { url: `${origin}/files/video.mp4`, duration: 1, respect_moderation: true }, model: 'x' } };
    }
    if (request.method !== 'POST') return undefined;
    if (request.path.endsWith('/videos/generations')) return { json: { request_id: 'xvid-fake-1' } };
    if (request.path.endsWith('/chat/completions')) {
      const model = String(request.json?.model ?? 'unknown');
      return { json: completion(model, wantsJson(request) ? JSON.stringify(FAKE_CODE) : fakeText(model)) };
    }
    if (request.path.endsWith('/images/generations') || request.path.endsWith('/images/edits')) {
      return { json: { created: 1, data: [{ b64_json: media.png.toString('base64') }] } };
    }
    if (request.path.endsWith('/audio/speech')) {
      return options.speechAsJson
        ? { json: { audio_data: media.mp3.toString('base64') } }
        : { bytes: media.mp3, contentType: 'audio/mpeg' };
    }
    if (request.path.endsWith('/audio/transcriptions')) {
      const segments = FAKE_TRANSCRIPT.segments.map((s, id) => ({
        id,
        seek: 0,
        start: s.start,
        end: s.end,
        text: ` ${s.text}`,
        tokens: [1],
        temperature: 0,
        avg_logprob: -0.1,
        compression_ratio: 1,
        no_speech_prob: 0,
      }));
      return {
        json: { task: 'transcribe', language: 'english', duration: 1.25, text: FAKE_TRANSCRIPT.text, segments, x_groq: { id: 'x' } },
      };
    }
    return undefined;
  });
}
