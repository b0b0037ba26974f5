import { openApiResponse } from './openapi-response';
import { documented } from '../http/route-doc';
import { openApiDocumentRoute } from '../http/routes/openapi-doc';

// GET /v1/openapi.json: the document built from the route table (registry.ts), public.
export const openApiRoute = documented(openApiResponse, openApiDocumentRoute);
