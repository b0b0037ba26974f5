import { openApiResponse } from '../../openapi/openapi-response';
import { documented } from '../route-doc';
import { openApiDocumentRoute } from './openapi-doc';

// GET /v1/openapi.json: the document built from the route table (registry.ts), public.
export const openApiRoute = documented(openApiResponse, openApiDocumentRoute);
