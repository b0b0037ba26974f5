import { routeMethods } from '@/server/http/route-methods';
import { serveSignedObject } from '@/server/http/serve-signed-object';

export const dynamic = 'force-dynamic';
// Other methods get 405 in the error envelope, as under /v1: output URLs are part of the API.
export const { GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS } = routeMethods({ GET: serveSignedObject });
