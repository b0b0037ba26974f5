import { FAKE_PROVIDER_DIAGNOSTIC, startFakeProviderServer, type FakeProviderServer } from '../fake-protocol-server';
import { FAKE_TRANSCRIPT, fakeVideo, mediaSamples } from './media-samples';

// fal (fal.run and queue.fal.run, one fake for both hosts): POST /{model} runs a model
// synchronously (an image model answers `images` by URL, a speech model `audio` by URL); POST to
// the queue (`audio_url` in the body) answers a request id whose result GET .../requests/{id}
// returns; a video model's queue request answers a response_url whose GET names the video (or
// fails with HTTP 500, or says it is still in progress), and a cancel_url (PUT); the
// files it links to are served from /files/.

export async function startFalFake(): Promise<FakeProviderServer> {
  const media = await mediaSamples();
  return startFakeProviderServer(async (request, origin, mode) => {
    if (request.method === 'GET' && request.path === '/files/image.png') return { bytes: media.png, contentType: 'image/png' };
    if (request.method === 'GET' && request.path === '/files/speech.mp3') return { bytes: media.mp3, contentType: 'audio/mpeg' };
    if (request.method === 'GET' && /\/requests\/req-fake-1$/.test(request.path)) {
      const chunks = FAKE_TRANSCRIPT.segments.map((s) => ({ text: ` ${s.text}`, timestamp: [s.start, s.end] }));
      return { json: { text: FAKE_TRANSCRIPT.text, chunks, inferred_languages: ['en'] } };
    }
    if (request.method === 'GET' && request.path === '/files/video.mp4') return { bytes: await fakeVideo(), contentType: 'video/mp4' };
    if (request.method === 'GET' && request.path.endsWith('/requests/vid-fake-1') && mode.kind === 'job-pending') {
      return { status: 400, json: { detail: 'Request is still in progress' } };
    }
    if (request.method === 'PUT' && request.path.endsWith('/requests/vid-fake-1/cancel')) {
      return { status: 202, json: { status: 'CANCELLATION_REQUESTED' } };
    }
    if (request.method === 'GET' && request.path.endsWith('/requests/vid-fake-1') && mode.kind === 'job-failed') {
      return { status: 500, json: { detail: FAKE_PROVIDER_DIAGNOSTIC } };
    }
    if (request.method === 'GET' && request.path.endsWith('/requests/vid-fake-1')) {
      return { json: { video: { url: `${origin}/files/video.mp4`, content_type: 'video/mp4' } } };
    }
    if (request.method !== 'POST') return undefined;
    if (request.path.includes('dream-machine')) {
      const requestUrl = `https://queue.fal.run${request.path}/requests/vid-fake-1`;
      return { json: { request_id: 'vid-fake-1', response_url: requestUrl, cancel_url: `${requestUrl}/cancel` } };
    }
    if (typeof request.json?.audio_url === 'string') return { json: { request_id: 'req-fake-1', status: 'IN_QUEUE' } };
    if (typeof request.json?.text === 'string') return { json: { audio: { url: `${origin}/files/speech.mp3` }, request_id: 'r2' } };
    if (typeof request.json?.prompt === 'string') {
      return { json: { images: [{ url: `${origin}/files/image.png`, content_type: 'image/png', width: 32, height: 24 }], seed: 1 } };
    }
    return undefined;
  });
}
