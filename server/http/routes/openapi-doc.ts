import { z } from 'zod';
import type { RouteDoc } from '../route-doc';

// GET /v1/openapi.json's entry in the route table (apart from its handler, which builds the
// document from the table).

export const openApiDocumentRoute: RouteDoc = {
  method: 'GET',
  path: '/v1/openapi.json',
  operationId: 'getOpenApiDocument',
  operation: 'openapi',
  summary: 'This OpenAPI document (public: no API key needed)',
  public: true,
  response: { status: 200, schema: z.record(z.string(), z.unknown()), description: 'The OpenAPI 3.1 document of /v1.' },
  errors: [],
};
