import { z } from 'zod';
import { forwardedHeadersTrusted } from '../auth/client-address';
import { publicOrigin } from '../auth/forwarded';
import { getConfig } from '../config';
import type { RouteDoc, RouteSpec } from '../http/route-doc';
import { newRequestId } from '../http/request-id';
import { jsonText } from '../http/responses';
import { buildOpenApiDocument } from './document';

// GET /v1/openapi.json: the document built from the surface's route table, public, so a client can
// be written before it holds a key. Built once; each answer names, in `servers`, the origin the
// client reached it at. Only that string is swapped in, so a stream of made-up Host headers costs
// no rebuild.

const ORIGIN_PLACEHOLDER = 'https://origin.placeholder.invalid';

/** The route at `path` answering the OpenAPI document of `routes` (read on the first request). */
export function openApiDocumentRoute(path: string, routes: () => readonly RouteSpec[]): RouteSpec {
  const doc: RouteDoc = {
    method: 'GET',
    path,
    operationId: 'getOpenApiDocument',
    operation: 'openapi',
    summary: 'This OpenAPI document (public: no API key needed)',
    public: true,
    response: { status: 200, schema: z.record(z.string(), z.unknown()), description: 'The OpenAPI 3.1 document of /v1.' },
    errors: [],
  };
  let template: [before: string, after: string] | undefined;
  const handle: RouteSpec['handle'] = async (request, call) => {
    if (!template) {
      const document = buildOpenApiDocument(
        routes().map((route) => route.doc),
        ORIGIN_PLACEHOLDER,
      );
      const [before, after] = JSON.stringify(document).split(JSON.stringify(ORIGIN_PLACEHOLDER));
      template = [before!, after!];
    }
    const origin = JSON.stringify(publicOrigin(request, getConfig().PUBLIC_BASE_URL, forwardedHeadersTrusted(call.connection)));
    return jsonText(200, `${template[0]}${origin}${template[1]}`, newRequestId());
  };
  return { doc, handle };
}
