import type Stripe from 'stripe';
import type { PrismaClient } from '../../db/generated/client';
import { retrieveCheckoutSession } from '../../payments/checkout-sessions';
import type { SalesEvent } from '../../payments/webhook-events';
import { recordAudit } from '../audit/record-audit';
import { fulfilCheckout, STRIPE_ACTOR, type FulfilResult } from './fulfil-checkout';

// What a verified Stripe event does. Every branch is idempotent: a duplicate or a replay
// finds the purchase fulfilled, the refund already counted, the dispute already flagged.

export type SalesEventResult =
  FulfilResult | { state: 'refund_recorded' | 'dispute_recorded' | 'unchanged'; purchaseId: string } | { state: 'ignored' };

export async function handleSalesEvent(db: PrismaClient, stripe: Stripe, event: SalesEvent): Promise<SalesEventResult> {
  switch (event.type) {
    case 'checkout':
      return fulfilSession(db, stripe, event.sessionId);
    case 'refund':
      return recordRefund(db, event.paymentIntentId, event.amountRefunded);
    case 'dispute':
      return recordDispute(db, event.paymentIntentId, event.reason);
    default:
      return { state: 'ignored' };
  }
}

/** Stripe is asked only about sessions this product started and has not fulfilled yet. */
async function fulfilSession(db: PrismaClient, stripe: Stripe, sessionId: string): Promise<FulfilResult> {
  const purchase = await db.purchase.findUnique({ where: { stripeSessionId: sessionId } });
  if (!purchase) return { state: 'unknown' };
  if (purchase.status === 'fulfilled') {
    return { state: 'already_fulfilled', purchaseId: purchase.id, kind: purchase.kind, keyId: purchase.apiKeyId };
  }
  return fulfilCheckout(db, await retrieveCheckoutSession(stripe, sessionId));
}

async function recordRefund(db: PrismaClient, paymentIntentId: string, amountRefunded: number): Promise<SalesEventResult> {
  return db.$transaction(async (tx) => {
    // Refunds only grow: an older event delivered late changes nothing.
    const moved = await tx.purchase.updateMany({
      where: { paymentIntentId, amountRefunded: { lt: amountRefunded } },
      data: { amountRefunded, refundedAt: new Date() },
    });
    const purchase = await tx.purchase.findUnique({ where: { paymentIntentId } });
    if (!purchase) return { state: 'ignored' as const };
    if (moved.count === 0) return { state: 'unchanged' as const, purchaseId: purchase.id };
    await recordAudit(tx, STRIPE_ACTOR, {
      action: 'purchase.refund',
      targetType: 'purchase',
      targetId: purchase.id,
      after: { api_key_id: purchase.apiKeyId, amount_refunded: amountRefunded, currency: purchase.currency },
    });
    return { state: 'refund_recorded' as const, purchaseId: purchase.id };
  });
}

async function recordDispute(db: PrismaClient, paymentIntentId: string, reason: string): Promise<SalesEventResult> {
  return db.$transaction(async (tx) => {
    const moved = await tx.purchase.updateMany({ where: { paymentIntentId, disputedAt: null }, data: { disputedAt: new Date() } });
    const purchase = await tx.purchase.findUnique({ where: { paymentIntentId } });
    if (!purchase) return { state: 'ignored' as const };
    if (moved.count === 0) return { state: 'unchanged' as const, purchaseId: purchase.id };
    await recordAudit(tx, STRIPE_ACTOR, {
      action: 'purchase.dispute',
      targetType: 'purchase',
      targetId: purchase.id,
      after: { api_key_id: purchase.apiKeyId, reason },
    });
    return { state: 'dispute_recorded' as const, purchaseId: purchase.id };
  });
}
