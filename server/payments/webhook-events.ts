import Stripe from 'stripe';

// A Stripe webhook delivery: verified against the raw body with the endpoint's signing secret,
// then reduced to the few events selling acts on.

export type SalesEvent =
  /** A Checkout Session that may be paid: the domain retrieves it and fulfils it once. */
  | { type: 'checkout'; sessionId: string }
  /** The session expired unpaid: its purchase is closed. */
  | { type: 'expired'; sessionId: string }
  | { type: 'refund'; paymentIntentId: string; amountRefunded: number; chargeId: string }
  | { type: 'dispute'; paymentIntentId: string; chargeId: string; disputeId: string; reason: string }
  | { type: 'ignored'; stripeType: string }
  /** Signed, but its fields are not of Stripe's types (never Stripe's own): refused, not a 500 Stripe retries for days. */
  | { type: 'malformed'; stripeType: string };

/** Stripe's tolerance, in seconds, both ways: its SDK refuses a signature older than this, not one dated later. */
const TOLERANCE_SECONDS = 300;

const SIGNATURE_REFUSAL = 'The Stripe-Signature header does not verify.';

/** A delivery's event, or why it is refused (400): the signature first, then what the signed body holds. */
export type VerifiedDelivery = { event: Stripe.Event } | { refusal: string };

/** Checks the signature (secret, timestamp) on the body, then reads the event from it. */
export function verifyStripeEvent(stripe: Stripe, rawBody: string, signature: string, webhookSecret: string): VerifiedDelivery {
  const signedAt = Number(/(?:^|,)t=(\d+)/.exec(signature)?.[1]);
  if (signedAt > Date.now() / 1000 + TOLERANCE_SECONDS) return { refusal: SIGNATURE_REFUSAL }; // dated in the future
  try {
    return { event: stripe.webhooks.constructEvent(rawBody, signature, webhookSecret, TOLERANCE_SECONDS) };
  } catch (error) {
    if (error instanceof Stripe.errors.StripeSignatureVerificationError) return { refusal: SIGNATURE_REFUSAL };
    // Signed, so the operator's own or Stripe's: say what is wrong with it, not that the signature is.
    if (error instanceof SyntaxError) return { refusal: 'The body is signed but is not JSON.' };
    return { refusal: 'The body is no Stripe event.' };
  }
}

/** An expandable field's id: the string, or the expanded object's `id`; anything else (never Stripe's) is none. */
const idOf = (value: unknown): string | null => {
  const id = typeof value === 'object' && value !== null ? (value as { id?: unknown }).id : value;
  return typeof id === 'string' && id !== '' ? id : null;
};

const sessionIdOf = (event: Stripe.Event): string | null => {
  const id: unknown = (event.data.object as { id?: unknown } | undefined)?.id;
  return typeof id === 'string' && id !== '' ? id : null;
};

export function salesEventOf(event: Stripe.Event): SalesEvent {
  // A signed body that is no object at all (`null`, `[]`, `5`) names no type.
  if (typeof event !== 'object' || event === null) return { type: 'malformed', stripeType: '' };
  const object: unknown = (event.data as { object?: unknown } | undefined)?.object;
  if (typeof event.type !== 'string') return { type: 'malformed', stripeType: '' };
  if (typeof object !== 'object' || object === null) return { type: 'malformed', stripeType: event.type };
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
      if (typeof amount !== 'number' || !Number.isSafeInteger(amount) || amount < 0 || !idOf(charge.id)) {
        return { type: 'malformed', stripeType: event.type };
      }
      return { type: 'refund', paymentIntentId, amountRefunded: amount, chargeId: charge.id };
    }
    case 'charge.dispute.created': {
      const dispute = event.data.object;
      const paymentIntentId = idOf(dispute.payment_intent);
      if (!paymentIntentId) return { type: 'ignored', stripeType: event.type };
      if (!idOf(dispute.id) || typeof dispute.reason !== 'string' || (dispute.charge != null && !idOf(dispute.charge))) {
        return { type: 'malformed', stripeType: event.type };
      }
      return { type: 'dispute', paymentIntentId, chargeId: idOf(dispute.charge) ?? '', disputeId: dispute.id, reason: dispute.reason };
    }
    default:
      return { type: 'ignored', stripeType: event.type };
  }
}
