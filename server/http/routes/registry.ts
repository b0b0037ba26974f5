import type { RouteDoc } from '../route-doc';
import { cancelJobRoute, getJobRoute, videosGenerateRoute } from './jobs';
import { audioSpeechRoute, audioTranscribeRoute, imagesGenerateRoute } from './media';
import { getKeyRoute } from './key';
import { openApiDocumentRoute } from './openapi-doc';
import { codeGenerateRoute, textGenerateRoute } from './text-and-code';
import { completeUploadRoute, createUploadRoute } from './uploads';

// The route table: every /v1 route and method, in the order the OpenAPI document lists them. The
// OpenAPI paths, the direct dispatcher of `npm start` (server/http/edge/direct-routes.ts) and the
// route label of logs, metrics and traces all come from it; tests/unit/route-table.test.ts checks
// that app/v1's route files export exactly these routes and methods.

export const ROUTES: readonly RouteDoc[] = [
  textGenerateRoute.route,
  codeGenerateRoute.route,
  imagesGenerateRoute.route,
  videosGenerateRoute.route,
  audioSpeechRoute.route,
  audioTranscribeRoute.route,
  createUploadRoute.route,
  completeUploadRoute.route,
  openApiDocumentRoute,
  getJobRoute.route,
  cancelJobRoute.route,
  getKeyRoute.route,
];
