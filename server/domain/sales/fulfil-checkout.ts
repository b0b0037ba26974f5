import type { Prisma, PrismaClient, Purchase } from '../../db/generated/client';
import type { CheckoutOutcome } from '../../payments/checkout-sessions';
import { alertOperator } from '../../observability/sales-alerts';
import { sealWithConfiguredSecret } from '../../providers/provider-keys/stored-provider-keys';
import { recordAudit } from '../audit/record-audit';
import { forgetKeyHash } from '../keys/authenticate-key';
import { insertKey } from '../keys/issue-key';
import { applyReversal, lockPaymentIntent } from './payment-reversals';
import { STRIPE_ACTOR } from './sales-actor';

// Fulfilment exactly once: whoever moves the purchase from open (or expired: Stripe's word that it
// was paid wins over the sweep) to fulfilled, one conditional UPDATE, so a racing webhook delivery,
// success page or replay finds nothing left to move, issues the key or adds the units in the same
// transaction; api_keys.purchase_id is unique too. A payment whose amount or currency is not the
// purchase's is refused and the operator alerted; refunds and disputes that came first are applied.

const PAID = new Set(['paid', 'no_payment_required']);

export type FulfilResult =
  | { state: 'fulfilled' | 'already_fulfilled'; purchaseId: string; kind: 'package' | 'top_up'; keyId: string | null }
  | { state: 'unpaid' | 'refused'; purchaseId: string }
  | { state: 'unknown' };

/** The AES-GCM associated data of a purchase's sealed secret: it opens on this purchase only. */
export const sealedSecretLabel = (purchaseId: string) => `purchase:${purchaseId}`;

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
  const { result, forget } = await db.$transaction(async (tx) => {
    if (outcome.paymentIntentId) await lockPaymentIntent(tx, outcome.paymentIntentId);
    const claimed = await tx.purchase.updateMany({
      where: { id: purchase.id, status: { in: ['open', 'expired'] } },
      data: { status: 'fulfilled', fulfilledAt: new Date(), ...paymentFields(outcome) },
    });
    if (claimed.count === 0) {
      return { result: settledResult(await tx.purchase.findUniqueOrThrow({ where: { id: purchase.id } })), forget: null };
    }
    const keyId = purchase.kind === 'package' ? await issueSoldKey(tx, purchase.id, outcome) : await addTopUp(tx, purchase);
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
  if (forget) forgetKeyHash(forget);
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
  alertOperator({ reason: 'fulfilment_refused', purchase_id: purchase.id, stripe_session_id: outcome.sessionId, detail: refusal });
  return { state: 'refused', purchaseId: purchase.id };
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
    label: outcome.email ? `Bought by ${outcome.email}`.slice(0, 200) : 'Bought through Stripe Checkout',
    units: purchase.units,
    expiresAt: null,
    sale: { purchaseId, buyerEmail: outcome.email, stripeCustomerId: outcome.customerId },
  });
  const sealed = sealWithConfiguredSecret(sealedSecretLabel(purchaseId), issued.key);
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

async function addTopUp(tx: Prisma.TransactionClient, purchase: { id: string; apiKeyId: string | null; units: number }): Promise<string> {
  const keyId = purchase.apiKeyId!;
  const before = await tx.apiKey.findUniqueOrThrow({ where: { id: keyId }, select: { remainingUnits: true, totalUnits: true } });
  const after = await tx.apiKey.update({
    where: { id: keyId },
    data: { remainingUnits: { increment: purchase.units }, totalUnits: { increment: purchase.units } },
    select: { remainingUnits: true, totalUnits: true },
  });
  await recordAudit(tx, STRIPE_ACTOR, {
    action: 'key.topup',
    targetType: 'api_key',
    targetId: keyId,
    before: { remaining_units: before.remainingUnits, total_units: before.totalUnits },
    after: { remaining_units: after.remainingUnits, total_units: after.totalUnits, purchase_id: purchase.id, units: purchase.units },
  });
  return keyId;
}
