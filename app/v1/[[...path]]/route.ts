import { notFoundMethods } from '@/server/http/pipeline';

export const dynamic = 'force-dynamic';
export const { GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS } = notFoundMethods();
