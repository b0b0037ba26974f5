import { routeMethods } from '@/server/http/route-methods';
import { textGenerateRoute } from '@/server/http/routes/text-and-code';

export const dynamic = 'force-dynamic';
export const { GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS } = routeMethods({ POST: textGenerateRoute });
