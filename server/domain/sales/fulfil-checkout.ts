import type { Prisma, PrismaClient } from '../../db/generated/client';
import type { CheckoutOutcome } from '../../payments/checkout-sessions';
import { sealWithConfiguredSecret } from '../../providers/provider-keys/stored-provider-keys';
import type { Actor } from '../actor';
import { recordAudit } from '../audit/record-audit';
import { insertKey } from '../keys/issue-key';

// Fulfilment exactly once: whoever moves the purchase from open to fulfilled (one conditional
// UPDATE, so a racing webhook delivery, success page or replay finds nothing left to move)
// issues the key or adds the units in the same transaction; api_keys.purchase_id is unique too.

export const STRIPE_ACTOR: Actor = { type: 'system', label: 'stripe' };
const PAID = new Set(['paid', 'no_payment_required']);

export type FulfilResult =
  | { state: 'fulfilled' | 'already_fulfilled'; purchaseId: string; kind: 'package' | 'top_up'; keyId: string | null }
  | { state: 'unpaid'; purchaseId: string }
  | { state: 'unknown' };

/** The AES-GCM associated data of a purchase's sealed secret: it opens on this purchase only. */
export const sealedSecretLabel = (purchaseId: string) => `purchase:${purchaseId}`;

export async function fulfilCheckout(db: PrismaClient, outcome: CheckoutOutcome): Promise<FulfilResult> {
  const purchase = outcome.purchaseId
    ? await db.purchase.findFirst({ where: { id: outcome.purchaseId, stripeSessionId: outcome.sessionId } })
    : null;
  if (!purchase) return { state: 'unknown' };
  if (purchase.status === 'fulfilled') {
    return { state: 'already_fulfilled', purchaseId: purchase.id, kind: purchase.kind, keyId: purchase.apiKeyId };
  }
  if (!PAID.has(outcome.paymentStatus)) return { state: 'unpaid', purchaseId: purchase.id };
  return db.$transaction(async (tx) => {
    const claimed = await tx.purchase.updateMany({
      where: { id: purchase.id, status: 'open' },
      data: {
        status: 'fulfilled',
        fulfilledAt: new Date(),
        amountPaid: outcome.amountTotal,
        buyerEmail: outcome.email,
        stripeCustomerId: outcome.customerId,
        paymentIntentId: outcome.paymentIntentId,
        receiptUrl: outcome.receiptUrl,
      },
    });
    if (claimed.count === 0) {
      const done = await tx.purchase.findUniqueOrThrow({ where: { id: purchase.id } });
      return { state: 'already_fulfilled' as const, purchaseId: done.id, kind: done.kind, keyId: done.apiKeyId };
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
    return { state: 'fulfilled' as const, purchaseId: purchase.id, kind: purchase.kind, keyId };
  });
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
