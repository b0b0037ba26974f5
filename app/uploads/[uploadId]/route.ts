import { uploadUrlMethods } from '@wgs/server/next';

export const dynamic = 'force-dynamic';
// Other methods get 405 in the error envelope, as under /v1: upload URLs are part of the API.
export const { GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS } = uploadUrlMethods;
