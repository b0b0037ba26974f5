// The fake Stripe of the e2e product (fakes/fake-stripe.ts): the product is started with
// STRIPE_API_BASE on this port and this webhook secret (playwright.config.ts), and the selling
// spec starts the fake there, so the fake's "Pay" delivers signed events the product accepts.

export const E2E_STRIPE_SECRET_KEY = 'sk_test_e2e_selling';
export const E2E_STRIPE_WEBHOOK_SECRET = 'whsec_e2e_selling_0123456789';

/** 1000 above the product's port: apart for every engineer's WGS_E2E_PORT. */
export const e2eStripePort = () => Number(process.env.WGS_E2E_PORT ?? '3107') + 1000;
