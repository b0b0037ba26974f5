import type Stripe from 'stripe';
import type { PrismaClient } from '../../db/generated/client';
import { retrieveCheckoutSession } from '../../payments/checkout-sessions';
import { ApiError } from '../errors';
import type { SalesEvent } from '../../payments/webhook-events';
import { expirePurchase } from './expire-purchases';
import { fulfilCheckout, type FulfilResult } from './fulfil-checkout';
import { recordReversal, type ReversalResult } from './payment-reversals';

// What a verified Stripe event does. Every branch is idempotent: a duplicate or a replay finds the
// purchase fulfilled or expired, the refund already counted, the dispute already applied.

export type SalesEventResult =
  | FulfilResult
  | { state: ReversalResult; purchaseId?: string }
  | { state: 'expired' | 'unchanged'; purchaseId: string }
  | { state: 'ignored' };

export async function handleSalesEvent(db: PrismaClient, stripe: Stripe, event: SalesEvent): Promise<SalesEventResult> {
  switch (event.type) {
    case 'checkout':
      return fulfilSession(db, stripe, event.sessionId);
    case 'expired':
      return expirePurchase(db, event.sessionId);
    case 'refund':
      return recordReversal(db, { kind: 'refund', paymentIntentId: event.paymentIntentId, amountRefunded: event.amountRefunded });
    case 'dispute':
      return recordReversal(db, {
        kind: 'dispute',
        paymentIntentId: event.paymentIntentId,
        disputeId: event.disputeId,
        reason: event.reason,
      });
    case 'malformed':
      throw new ApiError('invalid_request', {
        message: event.stripeType ? `The ${event.stripeType} event's fields are not of Stripe's types.` : 'The body is no Stripe event.',
      });
    default:
      return { state: 'ignored' };
  }
}

/** Stripe is asked only about sessions this product started and has not settled yet. */
async function fulfilSession(db: PrismaClient, stripe: Stripe, sessionId: string): Promise<FulfilResult> {
  const purchase = await db.purchase.findUnique({ where: { stripeSessionId: sessionId } });
  if (!purchase) return { state: 'unknown' };
  if (purchase.status === 'fulfilled') {
    return { state: 'already_fulfilled', purchaseId: purchase.id, kind: purchase.kind, keyId: purchase.apiKeyId };
  }
  if (purchase.status === 'refused') return { state: 'refused', purchaseId: purchase.id };
  const session = await retrieveCheckoutSession(stripe, sessionId).catch((error: unknown) => {
    // A 503 asks Stripe to deliver the event again later; nothing was changed.
    throw new ApiError('provider_unavailable', {
      message: 'Stripe could not be asked about the session; nothing was changed.',
      retryAfter: 5, // as every 503 (CONTRACT.md §2); Stripe itself retries on its own schedule
      cause: error,
    });
  });
  return fulfilCheckout(db, session);
}
