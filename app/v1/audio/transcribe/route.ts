import { routeMethods } from '@/server/http/route-methods';
import { audioTranscribeRoute } from '@/server/http/routes/media';

export const dynamic = 'force-dynamic';
export const { GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS } = routeMethods({ POST: audioTranscribeRoute });
