import {
  audioSpeechRequest,
  audioSpeechResponse,
  audioTranscribeRequest,
  audioTranscribeResponse,
  imagesGenerateRequest,
  imagesGenerateResponse,
} from '../../contract/generation';
import {
  generateImage,
  prepareAudioSpeech,
  prepareAudioTranscribe,
  prepareImagesGenerate,
  synthesizeSpeech,
  transcribeUpload,
} from '../../domain/generation/media';
import { getPrisma, getSqlDb } from '../../db/client';
import { definePostRoute } from '../pipeline';
import { generated } from '../route-context';

export const imagesGenerateRoute = definePostRoute({
  path: '/v1/images/generate',
  operationId: 'imagesGenerate',
  summary: 'Generate or transform an image',
  response: { status: 200, schema: imagesGenerateResponse, description: 'Generation result with a short-lived private URL.' },
  scope: 'images.generate',
  schema: imagesGenerateRequest,
  prepare: (body, ctx) => prepareImagesGenerate(getPrisma(), body, ctx.key),
  charge: (prepared) => ({
    operation: 'images.generate',
    units: prepared.units,
    engine: prepared.engine,
    inputUploadId: prepared.input?.id,
  }),
  run: async (prepared, ctx) => generated(await generateImage(getSqlDb(), prepared, ctx.origin, ctx.signal)),
});

export const audioSpeechRoute = definePostRoute({
  path: '/v1/audio/speech',
  operationId: 'audioSpeech',
  summary: 'Generate speech audio',
  response: { status: 200, schema: audioSpeechResponse, description: 'Generation result with a short-lived private URL.' },
  scope: 'audio.speech',
  schema: audioSpeechRequest,
  prepare: (body, ctx) => prepareAudioSpeech(body, ctx.key),
  charge: (prepared) => ({ operation: 'audio.speech', units: prepared.units, engine: prepared.engine }),
  run: async (prepared, ctx) => generated(await synthesizeSpeech(getSqlDb(), prepared, ctx.origin, ctx.signal)),
});

export const audioTranscribeRoute = definePostRoute({
  path: '/v1/audio/transcribe',
  operationId: 'audioTranscribe',
  summary: 'Transcribe a verified upload',
  response: { status: 200, schema: audioTranscribeResponse, description: 'Generation result with text and segments.' },
  scope: 'audio.transcribe',
  schema: audioTranscribeRequest,
  prepare: (body, ctx) => prepareAudioTranscribe(getPrisma(), body, ctx.key),
  charge: (prepared) => ({
    operation: 'audio.transcribe',
    units: prepared.units,
    engine: prepared.engine,
    inputUploadId: prepared.input.id,
  }),
  run: async (prepared, ctx) => generated(await transcribeUpload(getSqlDb(), prepared, ctx.signal)),
});
