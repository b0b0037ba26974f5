import { toOpenAIErrorResponse } from '../http/openai/openai-errors';
import { chatCompletionsRoute } from '../http/openai/routes/chat-completions';
import { audioSpeechOpenAIRoute, imagesGenerationsRoute } from '../http/openai/routes/images-and-speech';
import { getModelRoute, listModelsRoute } from '../http/openai/routes/models';
import { audioTranscriptionsRoute } from '../http/openai/routes/transcriptions';
import { createVideoRoute, getVideoContentRoute, getVideoRoute } from '../http/openai/routes/videos';
import { ApiError } from '../domain/errors';
import type { RouteSpec } from '../http/route-doc';
import type { Surface } from './surface';

// The route table of the OpenAI-compatible surface (docs/openai-compatible.md): OpenAI's paths under
// /openai/v1, each translated into the domain call of the /v1 operation it sells, answered in
// OpenAI's shapes and error format. A route is added here and nowhere else.

export const OPENAI_ROUTES: readonly RouteSpec[] = [
  chatCompletionsRoute,
  imagesGenerationsRoute,
  audioSpeechOpenAIRoute,
  audioTranscriptionsRoute,
  createVideoRoute,
  getVideoRoute,
  getVideoContentRoute,
  listModelsRoute,
  getModelRoute,
];

export const openaiSurface: Surface = {
  prefix: '/openai/v1',
  routes: OPENAI_ROUTES,
  answerError: toOpenAIErrorResponse,
  // OpenAI's other APIs (embeddings, responses, moderations, ...) are named as refused, not just unknown.
  unknownPath: (method, path) =>
    new ApiError('not_found', {
      message: `${method} ${path.length > 200 ? `${path.slice(0, 200)}…` : path} is not served by this surface: docs/openai-compatible.md lists what is.`,
    }),
};
