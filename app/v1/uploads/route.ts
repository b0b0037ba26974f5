import { routeMethods } from '@/server/http/route-methods';
import { createUploadRoute } from '@/server/http/routes/uploads';

export const dynamic = 'force-dynamic';
export const { GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS } = routeMethods({ POST: createUploadRoute });
