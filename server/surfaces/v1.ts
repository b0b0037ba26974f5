import { cancelJobRoute, getJobRoute, videosGenerateRoute } from '../http/routes/jobs';
import { getKeyRoute } from '../http/routes/key';
import { audioSpeechRoute, audioTranscribeRoute, imagesGenerateRoute } from '../http/routes/media';
import { codeGenerateRoute, textGenerateRoute } from '../http/routes/text-and-code';
import { completeUploadRoute, createUploadRoute } from '../http/routes/uploads';
import type { RouteSpec } from '../http/route-doc';
import { toErrorResponse } from '../http/responses';
import { openApiDocumentRoute } from '../openapi/openapi-route';
import type { Surface } from './surface';

// The route table of /v1: every route and method, in the order the OpenAPI document lists them.
// The service's app (service-app.ts) serves exactly these, the OpenAPI document is generated from
// them, and each request is logged, measured and traced under its route's path. A route is added
// here and nowhere else (its spec, in server/http/routes, says its path, method and schemas).

export const V1_ROUTES: readonly RouteSpec[] = [
  textGenerateRoute,
  codeGenerateRoute,
  imagesGenerateRoute,
  videosGenerateRoute,
  audioSpeechRoute,
  audioTranscribeRoute,
  createUploadRoute,
  completeUploadRoute,
  openApiDocumentRoute('/v1/openapi.json', () => V1_ROUTES),
  getJobRoute,
  cancelJobRoute,
  getKeyRoute,
];

export const v1Surface: Surface = {
  prefix: '/v1',
  routes: V1_ROUTES,
  answerError: toErrorResponse,
};
