import { serviceApp } from '@wgs/server/api';

// Every /openai/v1 path and method, handed to the service's app (server/surfaces), which routes it
// by the OpenAI-compatible surface's table: under `next dev`, on Vercel and with `npm start
// --v1-through-next`. `npm start` serves /openai/v1 with the same app without entering Next.
const serve = (request: Request) => serviceApp.fetch(request);

export const dynamic = 'force-dynamic';
export { serve as GET, serve as HEAD, serve as POST, serve as PUT, serve as PATCH, serve as DELETE, serve as OPTIONS };
