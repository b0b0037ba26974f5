import type Stripe from 'stripe';
import { ApiError } from '../domain/errors';

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

/** A signed event whose fields are not of Stripe's types (never Stripe's own): refused, not a 500 retried for days. */
const malformed = (type: string) => new ApiError('invalid_request', { message: `The ${type} event's fields are not of Stripe's types.` });

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
      const amount: unknown = charge.amount_refunded;
      if (typeof amount !== 'number' || !Number.isSafeInteger(amount) || amount < 0 || typeof charge.id !== 'string') {
        throw malformed(event.type);
      }
      return { type: 'refund', paymentIntentId, amountRefunded: amount, chargeId: charge.id };
    }
    case 'charge.dispute.created': {
      const dispute = event.data.object;
      const paymentIntentId = idOf(dispute.payment_intent);
      if (!paymentIntentId) return { type: 'ignored', stripeType: event.type };
      if (typeof dispute.id !== 'string' || typeof dispute.reason !== 'string') throw malformed(event.type);
      return { type: 'dispute', paymentIntentId, chargeId: idOf(dispute.charge) ?? '', disputeId: dispute.id, reason: dispute.reason };
    }
    default:
      return { type: 'ignored', stripeType: event.type };
  }
}
