import { audioSpeechRequest, audioTranscribeRequest, imagesGenerateRequest } from '../../contract/generation';
import {
  generateImage,
  prepareAudioSpeech,
  prepareAudioTranscribe,
  prepareImagesGenerate,
  synthesizeSpeech,
  transcribeUpload,
} from '../../domain/generation/media';
import { definePostRoute } from '../pipeline';

export const imagesGenerateRoute = definePostRoute({
  scope: 'images.generate',
  schema: imagesGenerateRequest,
  prepare: (body, ctx) => prepareImagesGenerate(body, ctx.key),
  charge: (prepared) => ({ operation: 'images.generate', units: prepared.units, engine: prepared.engine }),
  run: async (prepared, ctx) => ({ kind: 'generation', output: await generateImage(prepared, ctx.origin, ctx.signal, ctx.engines) }),
});

export const audioSpeechRoute = definePostRoute({
  scope: 'audio.speech',
  schema: audioSpeechRequest,
  prepare: (body, ctx) => prepareAudioSpeech(body, ctx.key),
  charge: (prepared) => ({ operation: 'audio.speech', units: prepared.units, engine: prepared.engine }),
  run: async (prepared, ctx) => ({ kind: 'generation', output: await synthesizeSpeech(prepared, ctx.origin, ctx.signal, ctx.engines) }),
});

export const audioTranscribeRoute = definePostRoute({
  scope: 'audio.transcribe',
  schema: audioTranscribeRequest,
  prepare: (body, ctx) => prepareAudioTranscribe(body, ctx.key),
  charge: (prepared) => ({ operation: 'audio.transcribe', units: prepared.units, engine: prepared.engine }),
  run: async (prepared, ctx) => ({ kind: 'generation', output: await transcribeUpload(prepared, ctx.signal, ctx.engines) }),
});
