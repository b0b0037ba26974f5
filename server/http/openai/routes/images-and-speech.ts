import { jsonResponse } from '../../responses';
import { objectResponse } from '../../serve-signed-object';
import { audioSpeechRoute, imagesGenerateRoute } from '../../routes/media';
import type { RouteContext } from '../../route-context';
import { unitHeaders } from '../openai-headers';
import { resolveModel } from '../openai-models';
import { OpenAIParams } from '../openai-params';
import { readJsonBody } from '../openai-request';
import { defineOpenAIPostRoute, translated, type Translation } from '../openai-route';
import { freshUrl, mediaBytes, readStoredMedia, storedMedia } from './stored-media';

// POST /openai/v1/images/generations (images.generate; `url` or `b64_json`) and POST
// /openai/v1/audio/speech (audio.speech; the audio bytes), run by their /v1 routes' steps.

const now = () => Math.floor(Date.now() / 1000);

function translateImages(body: Record<string, unknown>, ctx: RouteContext): Translation<unknown> {
  const params = new OpenAIParams(body);
  resolveModel(ctx.key, params.optional('model'), ['images.generate'], true);
  const prompt = params.optional('prompt');
  const format = params.oneOf('response_format', ['url', 'b64_json'] as const) ?? 'url';
  const outputFormat = params.string('output_format');
  const style = params.string('style');
  params.onlyDefault('n', [1]);
  for (const name of ['size', 'quality', 'background', 'moderation']) params.onlyDefault(name, ['auto']);
  params.done();
  const created = now();
  return translated({
    steps: imagesGenerateRoute.steps,
    v1Body: { prompt, style, output_format: outputFormat },
    params: { prompt: 'prompt', style: 'style', output_format: 'output_format' },
    fingerprinted: body,
    render: (result) => storedMedia(result, created),
    async respond(stored) {
      const media = readStoredMedia(stored);
      const image = format === 'url' ? { url: freshUrl(media, ctx.origin) } : { b64_json: (await mediaBytes(media)).toString('base64') };
      const output = media.mimeType.slice('image/'.length);
      return jsonResponse(200, { created: media.created, data: [image], output_format: output }, ctx.requestId, unitHeaders(media.units));
    },
  });
}

export const imagesGenerationsRoute = defineOpenAIPostRoute({
  path: '/openai/v1/images/generations',
  operationId: 'createImage',
  operation: 'images.generate',
  sells: ['images.generate'],
  summary: 'Create an image (images.generate)',
  read: (request) => readJsonBody(request),
  translate: translateImages,
});

function translateSpeech(body: Record<string, unknown>, ctx: RouteContext): Translation<unknown> {
  const params = new OpenAIParams(body);
  resolveModel(ctx.key, params.optional('model'), ['audio.speech']);
  const text = params.optional('input');
  const voice = params.string('voice');
  const format = params.oneOf('response_format', ['mp3', 'wav'] as const);
  params.onlyDefault('speed', [1]);
  params.onlyDefault('stream_format', ['audio']);
  params.done();
  return translated({
    steps: audioSpeechRoute.steps,
    v1Body: { text, voice, output_format: format },
    params: { text: 'input', voice: 'voice', output_format: 'response_format', language: 'input' },
    fingerprinted: body,
    render: (result) => storedMedia(result, now()),
    async respond(stored) {
      // Streamed from the store: a long recording is never held whole in memory, let alone twice.
      const media = readStoredMedia(stored);
      const response = await objectResponse(media.key, media.mimeType, ctx.requestId);
      for (const [name, value] of Object.entries(unitHeaders(media.units))) response.headers.set(name, value);
      return response;
    },
  });
}

export const audioSpeechOpenAIRoute = defineOpenAIPostRoute({
  path: '/openai/v1/audio/speech',
  operationId: 'createSpeech',
  operation: 'audio.speech',
  sells: ['audio.speech'],
  summary: 'Create speech audio (audio.speech)',
  read: (request) => readJsonBody(request),
  translate: translateSpeech,
});
