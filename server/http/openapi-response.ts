import { buildOpenApiDocument } from '../openapi/document';
import { newRequestId } from './request-id';
import { jsonText } from './responses';

let cached: string | undefined;

/** GET /v1/openapi.json: public, so a client can be written before it holds a key. */
export async function openApiResponse(): Promise<Response> {
  cached ??= JSON.stringify(buildOpenApiDocument());
  return jsonText(200, cached, newRequestId());
}
