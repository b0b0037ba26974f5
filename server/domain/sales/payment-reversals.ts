import type { Prisma, PrismaClient } from '../../db/generated/client';
import { advisoryXactLock } from '../../db/transaction-locks';
import { recordAudit } from '../audit/record-audit';
import { takeBackUnits } from '../billing/key-balance';
import { forgetKeyHash } from '../keys/authenticate-key';
import { STRIPE_ACTOR } from './sales-actor';
import { suspendKeyInTx } from './key-suspension';

// Refunds and disputes are matched to their purchase through the payment intent, whatever the
// order Stripe delivers them in: each is kept in payment_reversals first, then applied to the
// purchase once it is fulfilled (now, or by the fulfilment that comes later). One advisory lock
// per payment intent orders an event against the fulfilment, so neither misses the other.

export type ReversalEvent =
  | { kind: 'refund'; paymentIntentId: string; amountRefunded: number }
  | { kind: 'dispute'; paymentIntentId: string; disputeId: string; reason: string };

export type ReversalResult = 'refund_recorded' | 'dispute_recorded' | 'unchanged' | 'reversal_kept';

/** Serialises everything done for one payment intent, until the transaction ends. */
export async function lockPaymentIntent(tx: Prisma.TransactionClient, paymentIntentId: string): Promise<void> {
  await advisoryXactLock(tx, `wgs:payment:${paymentIntentId}`);
}

/** Keeps what Stripe reported and applies it when the purchase is fulfilled; kept for later otherwise. */
export async function recordReversal(db: PrismaClient, event: ReversalEvent): Promise<{ state: ReversalResult; purchaseId?: string }> {
  const { result, forget } = await db.$transaction(async (tx) => {
    await lockPaymentIntent(tx, event.paymentIntentId);
    await keepReversal(tx, event);
    const purchase = await tx.purchase.findUnique({ where: { paymentIntentId: event.paymentIntentId } });
    if (!purchase || purchase.status !== 'fulfilled') return { result: { state: 'reversal_kept' as const }, forget: null };
    const applied = await applyReversal(tx, purchase.id);
    const state: ReversalResult = applied.changed.includes(event.kind) ? (`${event.kind}_recorded` as const) : 'unchanged';
    return { result: { state, purchaseId: purchase.id }, forget: applied.forgetHash };
  });
  if (forget) forgetKeyHash(forget);
  return result;
}

/** Inside the payment intent's lock: what Stripe reported, kept (refunds only grow; a dispute is kept once). */
async function keepReversal(tx: Prisma.TransactionClient, event: ReversalEvent): Promise<void> {
  const now = new Date();
  const paymentIntentId = event.paymentIntentId;
  const kept = await tx.paymentReversal.findUnique({ where: { paymentIntentId } });
  if (event.kind === 'refund') {
    // An older event delivered late changes nothing.
    const refund = { amountRefunded: event.amountRefunded, refundedAt: now };
    if (!kept) await tx.paymentReversal.create({ data: { paymentIntentId, ...refund } });
    else if (event.amountRefunded > kept.amountRefunded) await tx.paymentReversal.update({ where: { paymentIntentId }, data: refund });
    return;
  }
  const dispute = { disputeId: event.disputeId, disputeReason: event.reason, disputedAt: now };
  if (!kept) await tx.paymentReversal.create({ data: { paymentIntentId, ...dispute } });
  else if (!kept.disputedAt) await tx.paymentReversal.update({ where: { paymentIntentId }, data: dispute });
}

/** The top-up units a refund of `refunded` (of `paid`) stands for: all of them for a full refund. */
export function unitsRefunded(units: number, paid: number, refunded: number): number {
  if (refunded <= 0 || paid <= 0) return 0;
  return refunded >= paid ? units : Math.floor((units * refunded) / paid);
}

/**
 * Inside a transaction holding the payment intent's lock: what was kept for the fulfilled purchase
 * and is not applied yet. A refund is recorded (a top-up gives back the unspent part of its units);
 * a dispute flags the purchase and suspends its key. Returns what changed and a hash to forget.
 */
export async function applyReversal(
  tx: Prisma.TransactionClient,
  purchaseId: string,
): Promise<{ changed: ('refund' | 'dispute')[]; forgetHash: string | null }> {
  const purchase = await tx.purchase.findUniqueOrThrow({ where: { id: purchaseId } });
  const reversal = purchase.paymentIntentId
    ? await tx.paymentReversal.findUnique({ where: { paymentIntentId: purchase.paymentIntentId } })
    : null;
  const changed: ('refund' | 'dispute')[] = [];
  let forgetHash: string | null = null;
  if (!reversal || !purchase.apiKeyId) return { changed, forgetHash };
  if (reversal.amountRefunded > purchase.amountRefunded) {
    await applyRefund(tx, purchase, reversal.amountRefunded);
    changed.push('refund');
  }
  if (reversal.disputedAt && !purchase.disputedAt) {
    await tx.purchase.update({ where: { id: purchase.id }, data: { disputedAt: reversal.disputedAt } });
    const cause = { purchase_id: purchase.id, dispute_id: reversal.disputeId, reason: reversal.disputeReason };
    await recordAudit(tx, STRIPE_ACTOR, {
      action: 'purchase.dispute',
      targetType: 'purchase',
      targetId: purchase.id,
      after: { api_key_id: purchase.apiKeyId, dispute_id: reversal.disputeId, reason: reversal.disputeReason },
    });
    forgetHash = await suspendKeyInTx(tx, STRIPE_ACTOR, purchase.apiKeyId, cause);
    changed.push('dispute');
  }
  return { changed, forgetHash };
}

type PurchaseRow = Awaited<ReturnType<Prisma.TransactionClient['purchase']['findUniqueOrThrow']>>;

async function applyRefund(tx: Prisma.TransactionClient, purchase: PurchaseRow, amountRefunded: number): Promise<void> {
  const paid = purchase.amountPaid ?? purchase.amount;
  let taken = 0;
  if (purchase.kind === 'top_up' && purchase.apiKeyId) {
    const owed = unitsRefunded(purchase.units, paid, amountRefunded) - unitsRefunded(purchase.units, paid, purchase.amountRefunded);
    const back = await takeBackUnits(tx, purchase.apiKeyId, owed);
    taken = back.taken;
    if (taken > 0) {
      await recordAudit(tx, STRIPE_ACTOR, {
        action: 'key.reclaim',
        targetType: 'api_key',
        targetId: purchase.apiKeyId,
        before: { remaining_units: back.remaining + taken },
        after: { remaining_units: back.remaining, purchase_id: purchase.id, units_taken_back: taken, units_refunded: owed },
      });
    }
  }
  await tx.purchase.update({
    where: { id: purchase.id },
    data: { amountRefunded, refundedAt: new Date(), unitsReclaimed: { increment: taken } },
  });
  await recordAudit(tx, STRIPE_ACTOR, {
    action: 'purchase.refund',
    targetType: 'purchase',
    targetId: purchase.id,
    after: { api_key_id: purchase.apiKeyId, amount_refunded: amountRefunded, currency: purchase.currency, units_taken_back: taken },
  });
}
