import { serviceApp } from '@wgs/server/api';

// A load balancers' probe, answered by the service's app (server/surfaces/service-app.ts) as
// `npm start` answers it without entering Next.
const serve = (request: Request) => serviceApp.fetch(request);

export const dynamic = 'force-dynamic';
export { serve as GET, serve as HEAD, serve as POST, serve as PUT, serve as PATCH, serve as DELETE, serve as OPTIONS };
