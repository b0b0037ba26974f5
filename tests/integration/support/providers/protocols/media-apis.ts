import { FAKE_PROVIDER_DIAGNOSTIC, startFakeProviderServer, type FakeProviderServer } from '../fake-protocol-server';
import { FAKE_CODE, FAKE_TRANSCRIPT, fakeVideo, mediaSamples } from './media-samples';

// Fakes of the remaining protocols, each from the provider's API reference:
// - AssemblyAI: POST /v2/upload (raw bytes) -> {upload_url}; POST /v2/transcript -> {id, status};
//   GET /v2/transcript/{id} -> the transcript, word times in milliseconds.
// - Luma: POST {base}/dream-machine/v1/generations/image -> {id, state}; GET .../generations/{id}
//   -> {state: completed, assets: {image: URL}}.
// - Replicate: POST {base}/models/{owner}/{name}/predictions (Prefer: wait) -> {output: [URL]};
//   a video model's prediction is still `starting`: GET its urls.get -> {status: succeeded, output: URL}
//   (or {status: failed, error}, or `processing` at every poll); POST its urls.cancel -> `canceled`.
// - Amazon Bedrock: POST {base}/model/{id}/converse (the `json` tool answers structured output),
//   POST {base}/model/{id}/invoke for image models -> {images: [base64]}.
// Files they link to are served from /files/.

export const fakeBedrockText = (model: string) => `bedrock answer from ${model}`;

export async function startMediaApisFake(): Promise<FakeProviderServer> {
  const media = await mediaSamples();
  return startFakeProviderServer(async (request, origin, mode) => {
    const { method, path } = request;
    if (method === 'GET' && path === '/files/image.png') return { bytes: media.png, contentType: 'image/png' };
    // AssemblyAI
    if (method === 'POST' && path === '/v2/upload') return { json: { upload_url: `${origin}/files/uploaded.wav` } };
    if (method === 'POST' && path === '/v2/transcript') return { json: { id: 'tr-fake-1', status: 'queued' } };
    if (method === 'GET' && path === '/v2/transcript/tr-fake-1') {
      const words = FAKE_TRANSCRIPT.segments.map((s) => ({ text: s.text, start: s.start * 1000, end: s.end * 1000, confidence: 0.98 }));
      return {
        json: { id: 'tr-fake-1', status: 'completed', text: FAKE_TRANSCRIPT.text, language_code: 'en', words, audio_duration: 1.25 },
      };
    }
    // Luma
    if (method === 'POST' && path.endsWith('/dream-machine/v1/generations/image')) return { json: { id: 'gen-fake-1', state: 'queued' } };
    if (method === 'GET' && path.endsWith('/dream-machine/v1/generations/gen-fake-1')) {
      return { json: { id: 'gen-fake-1', state: 'completed', assets: { image: `${origin}/files/image.png` } } };
    }
    // Replicate
    if (method === 'GET' && path === '/files/video.mp4') return { bytes: await fakeVideo(), contentType: 'video/mp4' };
    const prediction = (status: string, output?: string) => ({
      id: 'pred-vid-1',
      status,
      ...(output ? { output } : {}),
      urls: { get: `${origin}/v1/predictions/pred-vid-1`, cancel: `${origin}/v1/predictions/pred-vid-1/cancel` },
    });
    if (method === 'POST' && /\/models\/[^/]+\/[^/]*video[^/]*\/predictions$/.test(path))
      return { status: 201, json: prediction('starting') };
    if (method === 'GET' && path === '/v1/predictions/pred-vid-1' && mode.kind === 'job-pending') return { json: prediction('processing') };
    if (method === 'POST' && path === '/v1/predictions/pred-vid-1/cancel') return { json: prediction('canceled') };
    if (method === 'GET' && path === '/v1/predictions/pred-vid-1' && mode.kind === 'job-failed') {
      return { json: { ...prediction('failed'), error: FAKE_PROVIDER_DIAGNOSTIC } };
    }
    if (method === 'GET' && path === '/v1/predictions/pred-vid-1') return { json: prediction('succeeded', `${origin}/files/video.mp4`) };
    if (method === 'POST' && /\/models\/[^/]+\/[^/]+\/predictions$/.test(path)) {
      return { status: 201, json: { id: 'pred-fake', status: 'succeeded', output: [`${origin}/files/image.png`] } };
    }
    // Amazon Bedrock
    const converse = /\/model\/([^/]+)\/converse$/.exec(path);
    if (method === 'POST' && converse) {
      const model = decodeURIComponent(converse[1]!);
      const jsonTool = (request.json?.toolConfig?.tools as { toolSpec?: { name?: string } }[] | undefined)?.some(
        (t) => t.toolSpec?.name === 'json',
      );
      const content = jsonTool ? [{ toolUse: { toolUseId: 'tu-1', name: 'json', input: FAKE_CODE } }] : [{ text: fakeBedrockText(model) }];
      return {
        json: {
          output: { message: { role: 'assistant', content } },
          stopReason: jsonTool ? 'tool_use' : 'end_turn',
          usage: { inputTokens: 5, outputTokens: 7, totalTokens: 12 },
        },
      };
    }
    if (method === 'POST' && /\/model\/[^/]+\/invoke$/.test(path)) return { json: { images: [media.png.toString('base64')] } };
    return undefined;
  });
}
