import { handleCheckoutStart, routeMethods } from '@wgs/server/next';

// The catalogue's "Buy" form: starts a Stripe Checkout Session and redirects to it.
export const dynamic = 'force-dynamic';

// Every other method: 405 in the envelope, with Allow.
export const { GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS } = routeMethods({ POST: handleCheckoutStart });
