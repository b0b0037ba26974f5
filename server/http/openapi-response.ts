import { getConfig } from '../config';
import { buildOpenApiDocument } from '../openapi/document';
import { publicOrigin } from './headers';
import { newRequestId } from './request-id';
import { jsonText } from './responses';

// Built once per origin (a handful: PUBLIC_BASE_URL, or the hosts clients use), so the
// document's `servers` names the origin the client reached it at.
const cache = new Map<string, string>();
const MAX_CACHED_ORIGINS = 16;

/** GET /v1/openapi.json: public, so a client can be written before it holds a key. */
export async function openApiResponse(request: Request): Promise<Response> {
  const origin = publicOrigin(request, getConfig().PUBLIC_BASE_URL);
  let document = cache.get(origin);
  if (document === undefined) {
    document = JSON.stringify(buildOpenApiDocument(origin));
    if (cache.size >= MAX_CACHED_ORIGINS) cache.delete(cache.keys().next().value!);
    cache.set(origin, document);
  }
  return jsonText(200, document, newRequestId());
}
