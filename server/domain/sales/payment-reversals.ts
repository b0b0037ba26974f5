import type { Prisma, PrismaClient } from '../../db/generated/client';
import { recordAudit } from '../audit/record-audit';
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
  await tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtextextended(${`wgs:payment:${paymentIntentId}`}, 0))`;
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

async function keepReversal(tx: Prisma.TransactionClient, event: ReversalEvent): Promise<void> {
  const now = new Date();
  if (event.kind === 'refund') {
    // Refunds only grow: an older event delivered late changes nothing.
    await tx.$executeRaw`
      INSERT INTO payment_reversals (payment_intent_id, amount_refunded, refunded_at)
      VALUES (${event.paymentIntentId}, ${event.amountRefunded}::int, ${now})
      ON CONFLICT (payment_intent_id) DO UPDATE
        SET amount_refunded = GREATEST(payment_reversals.amount_refunded, EXCLUDED.amount_refunded),
            refunded_at = CASE WHEN EXCLUDED.amount_refunded > payment_reversals.amount_refunded
                               THEN EXCLUDED.refunded_at ELSE payment_reversals.refunded_at END`;
    return;
  }
  await tx.$executeRaw`
    INSERT INTO payment_reversals (payment_intent_id, dispute_id, dispute_reason, disputed_at)
    VALUES (${event.paymentIntentId}, ${event.disputeId}, ${event.reason}, ${now})
    ON CONFLICT (payment_intent_id) DO UPDATE
      SET dispute_id = COALESCE(payment_reversals.dispute_id, EXCLUDED.dispute_id),
          dispute_reason = COALESCE(payment_reversals.dispute_reason, EXCLUDED.dispute_reason),
          disputed_at = COALESCE(payment_reversals.disputed_at, EXCLUDED.disputed_at)`;
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
    // Units already spent stay spent: only what the key still has can go back.
    const [row] = await tx.$queryRaw<{ taken: number; remaining: number }[]>`
      WITH before AS (SELECT remaining_units FROM api_keys WHERE id = ${purchase.apiKeyId}::uuid FOR UPDATE)
      UPDATE api_keys k SET remaining_units = k.remaining_units - LEAST(${owed}::int, b.remaining_units)
        FROM before b WHERE k.id = ${purchase.apiKeyId}::uuid
      RETURNING LEAST(${owed}::int, b.remaining_units) AS taken, k.remaining_units AS remaining`;
    taken = row?.taken ?? 0;
    if (taken > 0) {
      await recordAudit(tx, STRIPE_ACTOR, {
        action: 'key.reclaim',
        targetType: 'api_key',
        targetId: purchase.apiKeyId,
        before: { remaining_units: (row?.remaining ?? 0) + taken },
        after: { remaining_units: row?.remaining ?? 0, purchase_id: purchase.id, units_taken_back: taken, units_refunded: owed },
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
