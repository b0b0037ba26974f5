import { routeMethods, signInRoute, signOutRoute } from '@wgs/server/next';

export const dynamic = 'force-dynamic';

// Every other method: 405 in the envelope, with Allow.
export const { GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS } = routeMethods({ POST: signInRoute, DELETE: signOutRoute });
