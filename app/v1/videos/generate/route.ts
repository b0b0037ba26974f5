import { routeMethods } from '@/server/http/route-methods';
import { videosGenerateRoute } from '@/server/http/routes/jobs';

export const dynamic = 'force-dynamic';
export const { GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS } = routeMethods({ POST: videosGenerateRoute });
