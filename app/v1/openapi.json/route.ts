import { routeMethods } from '@/server/http/route-methods';
import { openApiRoute } from '@/server/openapi/openapi-route';

export const dynamic = 'force-dynamic';
export const { GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS } = routeMethods({ GET: openApiRoute });
