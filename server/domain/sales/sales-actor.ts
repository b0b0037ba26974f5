import type { Actor } from '../actor';

/** Who the audit log names for what Stripe's events and payments do. */
export const STRIPE_ACTOR: Actor = { type: 'system', label: 'stripe' };
