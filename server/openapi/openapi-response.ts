import { getConfig } from '../config';
import { buildOpenApiDocument } from './document';
import { publicOrigin } from '../auth/forwarded';
import { newRequestId } from '../http/request-id';
import { jsonText } from '../http/responses';
import { forwardedHeadersTrusted } from '../auth/client-address';

// Built once; each answer names, in `servers`, the origin the client reached it at. Only that
// string is swapped in, so a stream of made-up Host headers costs no rebuild.
const ORIGIN_PLACEHOLDER = 'https://origin.placeholder.invalid';
let template: [before: string, after: string] | undefined;

/** GET /v1/openapi.json: public, so a client can be written before it holds a key. */
export async function openApiResponse(request: Request): Promise<Response> {
  if (!template) {
    const [before, after] = JSON.stringify(buildOpenApiDocument(ORIGIN_PLACEHOLDER)).split(JSON.stringify(ORIGIN_PLACEHOLDER));
    template = [before!, after!];
  }
  const origin = JSON.stringify(publicOrigin(request, getConfig().PUBLIC_BASE_URL, forwardedHeadersTrusted(request.headers)));
  return jsonText(200, `${template[0]}${origin}${template[1]}`, newRequestId());
}
