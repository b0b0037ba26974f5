import { handleStripeWebhook, routeMethods } from '@wgs/server/next';

// Stripe's webhook deliveries (docs/selling.md); the handler verifies the signature on the raw body.
export const dynamic = 'force-dynamic';

// Every other method: 405 in the envelope, with Allow.
export const { GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS } = routeMethods({ POST: handleStripeWebhook });
