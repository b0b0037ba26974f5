import { routeMethods } from '@/server/http/pipeline';
import { openApiResponse } from '@/server/openapi/openapi-response';

export const dynamic = 'force-dynamic';
export const { GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS } = routeMethods({ GET: openApiResponse });
