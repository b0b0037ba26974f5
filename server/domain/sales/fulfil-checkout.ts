import type { Prisma, PrismaClient, Purchase } from '../../db/generated/client';
import type { CheckoutOutcome } from '../../payments/checkout-sessions';
import { alertOperator } from '../../observability/sales-alerts';
import { recordAudit } from '../audit/record-audit';
import { addUnits } from '../billing/key-balance';
import { forgetKeyHash } from '../keys/authenticate-key';
import { insertKey } from '../keys/issue-key';
import { applyReversal, lockPaymentIntent } from './payment-reversals';
import { STRIPE_ACTOR } from './sales-actor';
import { SOLD_KEY_LABEL } from './sold-key-label';
import { sealSoldKeySecret } from './sold-key-secret';

// Fulfilment exactly once: whoever moves the purchase from open (or expired: Stripe's word that it
// was paid wins over the sweep) to fulfilled, one conditional UPDATE, so a racing webhook delivery,
// success page or replay finds nothing left to move, issues the key or adds the units in the same
// transaction; api_keys.purchase_id is unique too. A payment whose amount or currency is not the
// purchase's is refused and the operator alerted; refunds and disputes that came first are applied.

const PAID = new Set(['paid', 'no_payment_required']);

/** What the fulfilment's transaction settled: the result, a key hash to forget, a refusal to tell the operator. */
type Settled = { result: FulfilResult; forget: string | null; refusal?: string };

export type FulfilResult =
  | { state: 'fulfilled' | 'already_fulfilled'; purchaseId: string; kind: 'package' | 'top_up'; keyId: string | null }
  | { state: 'unpaid' | 'refused'; purchaseId: string }
  | { state: 'unknown' };

const settledResult = (purchase: Purchase): FulfilResult =>
  purchase.status === 'refused'
    ? { state: 'refused', purchaseId: purchase.id }
    : { state: 'already_fulfilled', purchaseId: purchase.id, kind: purchase.kind, keyId: purchase.apiKeyId };

/** How Stripe's payment differs from the purchase (amount, currency), or null when it is the one asked for. */
export function paymentMismatch(purchase: { amount: number; currency: string }, outcome: CheckoutOutcome): string | null {
  const currency = outcome.currency?.toUpperCase() ?? null;
  if (currency !== purchase.currency.toUpperCase()) return `currency ${currency ?? 'none'} instead of ${purchase.currency}`;
  if (outcome.amountTotal !== purchase.amount) return `amount ${outcome.amountTotal ?? 'none'} instead of ${purchase.amount} (minor units)`;
  return null;
}

export async function fulfilCheckout(db: PrismaClient, outcome: CheckoutOutcome): Promise<FulfilResult> {
  const purchase = outcome.purchaseId
    ? await db.purchase.findFirst({ where: { id: outcome.purchaseId, stripeSessionId: outcome.sessionId } })
    : null;
  if (!purchase) return { state: 'unknown' };
  if (purchase.status === 'fulfilled' || purchase.status === 'refused') return settledResult(purchase);
  if (!PAID.has(outcome.paymentStatus)) return { state: 'unpaid', purchaseId: purchase.id };
  const mismatch = paymentMismatch(purchase, outcome);
  if (mismatch) return refuseFulfilment(db, purchase, outcome, mismatch);
  const settled = await db.$transaction(async (tx): Promise<Settled> => {
    if (outcome.paymentIntentId) await lockPaymentIntent(tx, outcome.paymentIntentId);
    const claimed = await tx.purchase.updateMany({
      where: { id: purchase.id, status: { in: ['open', 'expired'] } },
      data: { status: 'fulfilled', fulfilledAt: new Date(), ...paymentFields(outcome) },
    });
    if (claimed.count === 0) {
      return { result: settledResult(await tx.purchase.findUniqueOrThrow({ where: { id: purchase.id } })), forget: null };
    }
    const credited = purchase.kind === 'package' ? { keyId: await issueSoldKey(tx, purchase.id, outcome) } : await addTopUp(tx, purchase);
    if ('refusal' in credited)
      return { result: { state: 'refused' as const, purchaseId: purchase.id }, forget: null, refusal: credited.refusal };
    const { keyId } = credited;
    await recordAudit(tx, STRIPE_ACTOR, {
      action: 'purchase.fulfil',
      targetType: 'purchase',
      targetId: purchase.id,
      after: {
        kind: purchase.kind,
        api_key_id: keyId,
        units: purchase.units,
        stripe_session_id: outcome.sessionId,
        amount_paid: outcome.amountTotal,
        currency: outcome.currency,
        buyer_email: outcome.email,
        stripe_customer_id: outcome.customerId,
      },
    });
    const applied = await applyReversal(tx, purchase.id);
    const fulfilled = { state: 'fulfilled' as const, purchaseId: purchase.id, kind: purchase.kind, keyId };
    return { result: fulfilled, forget: applied.forgetHash };
  });
  const { result, forget } = settled;
  if (forget) forgetKeyHash(forget);
  if (settled.refusal) alertRefusal(purchase, outcome, settled.refusal);
  return result;
}

/** What Stripe says of the payment, kept on the purchase (fulfilled or refused). */
function paymentFields(outcome: CheckoutOutcome) {
  return {
    amountPaid: outcome.amountTotal,
    buyerEmail: outcome.email,
    stripeCustomerId: outcome.customerId,
    paymentIntentId: outcome.paymentIntentId,
    receiptUrl: outcome.receiptUrl,
  };
}

/** Nothing is issued for a payment that is not the one asked for; the operator is told (dashboard, log, metric). */
async function refuseFulfilment(db: PrismaClient, purchase: Purchase, outcome: CheckoutOutcome, mismatch: string): Promise<FulfilResult> {
  const refusal = `Stripe reported ${mismatch}`;
  const moved = await db.$transaction(async (tx) => {
    const claimed = await tx.purchase.updateMany({
      where: { id: purchase.id, status: { in: ['open', 'expired'] } },
      data: { status: 'refused', refusal, ...paymentFields(outcome) },
    });
    if (claimed.count === 0) return false;
    await recordAudit(tx, STRIPE_ACTOR, {
      action: 'purchase.refuse',
      targetType: 'purchase',
      targetId: purchase.id,
      after: { reason: refusal, stripe_session_id: outcome.sessionId, amount_paid: outcome.amountTotal, currency: outcome.currency },
    });
    return true;
  });
  if (!moved) return settledResult(await db.purchase.findUniqueOrThrow({ where: { id: purchase.id } }));
  alertRefusal(purchase, outcome, refusal);
  return { state: 'refused', purchaseId: purchase.id };
}

function alertRefusal(purchase: Purchase, outcome: CheckoutOutcome, refusal: string): void {
  alertOperator({ reason: 'fulfilment_refused', purchase_id: purchase.id, stripe_session_id: outcome.sessionId, detail: refusal });
}

/** A new key on the bought version; its secret sealed on the purchase until the buyer's browser shows it. */
async function issueSoldKey(tx: Prisma.TransactionClient, purchaseId: string, outcome: CheckoutOutcome): Promise<string> {
  const purchase = await tx.purchase.findUniqueOrThrow({
    where: { id: purchaseId },
    include: { packageVersion: { include: { package: true } } },
  });
  const version = purchase.packageVersion;
  const issued = await insertKey(tx, STRIPE_ACTOR, {
    packageSlug: version.package.slug,
    version,
    // Not the buyer's e-mail: that is kept on its own (buyer_email), so that clearing it removes it; keys are found by it.
    label: SOLD_KEY_LABEL,
    units: purchase.units,
    expiresAt: null,
    sale: { purchaseId, buyerEmail: outcome.email, stripeCustomerId: outcome.customerId },
  });
  const sealed = sealSoldKeySecret(purchaseId, issued.key);
  await tx.purchase.update({
    where: { id: purchaseId },
    data: {
      apiKeyId: issued.id,
      secretIv: new Uint8Array(sealed.iv),
      secretCiphertext: new Uint8Array(sealed.ciphertext),
      secretAuthTag: new Uint8Array(sealed.authTag),
    },
  });
  return issued.id;
}

/**
 * A paid top-up's units, through billing's one top-up (the key's row locked, the key active, the
 * balance within its integer). Refused, the purchase is refused in the same transaction (nothing is
 * added, the operator is told and refunds it); else the key's id.
 */
async function addTopUp(tx: Prisma.TransactionClient, purchase: { id: string; apiKeyId: string | null; units: number }) {
  const keyId = purchase.apiKeyId!;
  const added = await addUnits(tx, keyId, purchase.units);
  if (!('after' in added)) {
    const refusal = 'refused' in added ? `top-up refused: ${added.refused.message}` : `top-up refused: API key ${keyId} is gone`;
    await tx.purchase.update({ where: { id: purchase.id }, data: { status: 'refused', refusal, fulfilledAt: null } });
    await recordAudit(tx, STRIPE_ACTOR, {
      action: 'purchase.refuse',
      targetType: 'purchase',
      targetId: purchase.id,
      after: { reason: refusal },
    });
    return { refusal };
  }
  const { before, after } = added;
  await recordAudit(tx, STRIPE_ACTOR, {
    action: 'key.topup',
    targetType: 'api_key',
    targetId: keyId,
    before: { remaining_units: before.remainingUnits, total_units: before.totalUnits },
    after: { remaining_units: after.remainingUnits, total_units: after.totalUnits, purchase_id: purchase.id, units: purchase.units },
  });
  return { keyId };
}
