import type Stripe from 'stripe';

// A Stripe webhook delivery: verified against the raw body with the endpoint's signing secret,
// then reduced to the few events selling acts on.

export type SalesEvent =
  /** A Checkout Session that may be paid: the domain retrieves it and fulfils it once. */
  | { type: 'checkout'; sessionId: string }
  /** The session expired unpaid: its purchase is closed. */
  | { type: 'expired'; sessionId: string }
  | { type: 'refund'; paymentIntentId: string; amountRefunded: number; chargeId: string }
  | { type: 'dispute'; paymentIntentId: string; chargeId: string; disputeId: string; reason: string }
  | { type: 'ignored'; stripeType: string };

/** Throws Stripe's StripeSignatureVerificationError when the signature, secret or timestamp is wrong. */
export function verifyStripeEvent(stripe: Stripe, rawBody: string, signature: string, webhookSecret: string): Stripe.Event {
  return stripe.webhooks.constructEvent(rawBody, signature, webhookSecret);
}

const idOf = (value: string | { id: string } | null | undefined): string | null =>
  value == null ? null : typeof value === 'string' ? value : value.id;

const sessionIdOf = (event: Stripe.Event): string | null => {
  const id: unknown = (event.data.object as { id?: unknown } | undefined)?.id;
  return typeof id === 'string' && id !== '' ? id : null;
};

export function salesEventOf(event: Stripe.Event): SalesEvent {
  switch (event.type) {
    case 'checkout.session.completed':
    case 'checkout.session.async_payment_succeeded':
    case 'checkout.session.expired': {
      // A session event names its session; one that does not (never Stripe's) is not acted on.
      const sessionId = sessionIdOf(event);
      if (!sessionId) return { type: 'ignored', stripeType: event.type };
      return { type: event.type === 'checkout.session.expired' ? 'expired' : 'checkout', sessionId };
    }
    case 'charge.refunded': {
      const charge = event.data.object;
      const paymentIntentId = idOf(charge.payment_intent);
      if (!paymentIntentId) return { type: 'ignored', stripeType: event.type };
      return { type: 'refund', paymentIntentId, amountRefunded: charge.amount_refunded, chargeId: charge.id };
    }
    case 'charge.dispute.created': {
      const dispute = event.data.object;
      const paymentIntentId = idOf(dispute.payment_intent);
      if (!paymentIntentId) return { type: 'ignored', stripeType: event.type };
      return { type: 'dispute', paymentIntentId, chargeId: idOf(dispute.charge) ?? '', disputeId: dispute.id, reason: dispute.reason };
    }
    default:
      return { type: 'ignored', stripeType: event.type };
  }
}
