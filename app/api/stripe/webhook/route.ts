import { handleStripeWebhook } from '@wgs/server/next';

// Stripe's webhook deliveries (docs/selling.md); the handler verifies the signature on the raw body.
export const dynamic = 'force-dynamic';

export const POST = handleStripeWebhook;
