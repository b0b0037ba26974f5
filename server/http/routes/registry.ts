import { z } from 'zod';
import type { RouteDoc } from '../route-doc';
import { cancelJobRoute, getJobRoute, videosGenerateRoute } from './jobs';
import { audioSpeechRoute, audioTranscribeRoute, imagesGenerateRoute } from './media';
import { getKeyRoute } from './key';
import { codeGenerateRoute, textGenerateRoute } from './text-and-code';
import { completeUploadRoute, createUploadRoute } from './uploads';

// Every /v1 operation, in the order the OpenAPI document lists them. Each app/v1 route file
// serves one of them (a test checks that the document names every route file).

/** GET /v1/openapi.json (served by openapi/openapi-response.ts, which builds from this list). */
const openApiDocumentRoute: RouteDoc = {
  method: 'GET',
  path: '/v1/openapi.json',
  operationId: 'getOpenApiDocument',
  summary: 'This OpenAPI document (public: no API key needed)',
  public: true,
  response: { status: 200, schema: z.record(z.string(), z.unknown()), description: 'The OpenAPI 3.1 document of /v1.' },
  errors: [],
};

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
