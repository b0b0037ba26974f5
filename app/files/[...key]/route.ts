import { serveSignedObject } from '@/server/http/serve-signed-object';

export const dynamic = 'force-dynamic';
export const GET = serveSignedObject;
