import { handleCheckoutStart } from '@wgs/server/next';

// The catalogue's "Buy" form: starts a Stripe Checkout Session and redirects to it.
export const dynamic = 'force-dynamic';

export const POST = handleCheckoutStart;
