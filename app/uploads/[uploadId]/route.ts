import { routeMethods } from '@/server/http/route-methods';
import { handleUploadPut } from '@/server/http/upload-put';

export const dynamic = 'force-dynamic';
// Other methods get 405 in the error envelope, as under /v1: upload URLs are part of the API.
export const { GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS } = routeMethods({ PUT: handleUploadPut });
