import { routeMethods } from '@/server/http/route-methods';
import { getKeyRoute } from '@/server/http/routes/key';

export const dynamic = 'force-dynamic';
export const { GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS } = routeMethods({ GET: getKeyRoute });
