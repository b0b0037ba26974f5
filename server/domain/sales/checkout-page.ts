import type Stripe from 'stripe';
import type { PrismaClient } from '../../db/generated/client';
import { retrieveCheckoutSession } from '../../payments/checkout-sessions';
import { openWithConfiguredSecret } from '../../providers/provider-keys/stored-provider-keys';
import { sha256Hex } from '../canonical-json';
import { fulfilCheckout, sealedSecretLabel } from './fulfil-checkout';

// What the success page shows. When the webhook has not arrived yet, the page fulfils the
// session itself (Stripe's word on payment_status, the same exactly-once rule). The secret is
// revealed once, to the browser whose cookie started the checkout, and deleted as it is shown.

export type CheckoutPageState =
  | { state: 'unknown' }
  /** Not paid (yet): an asynchronous payment method, or Stripe did not answer. */
  | { state: 'processing' }
  | { state: 'revealed'; key: string; prefix: string; packageName: string; units: number }
  /** Shown already, or to another browser: the next steps, never the secret. */
  | { state: 'key_issued'; prefix: string; packageName: string }
  | { state: 'topped_up'; prefix: string; units: number };

export async function checkoutPageState(
  db: PrismaClient,
  stripe: Stripe,
  input: { sessionId: string; browserToken?: string },
): Promise<CheckoutPageState> {
  let purchase = await db.purchase.findUnique({ where: { stripeSessionId: input.sessionId } });
  if (!purchase) return { state: 'unknown' };
  if (purchase.status === 'open') {
    const outcome = await retrieveCheckoutSession(stripe, input.sessionId).catch(() => null);
    if (!outcome) return { state: 'processing' };
    const result = await fulfilCheckout(db, outcome);
    if (result.state === 'unpaid' || result.state === 'unknown') return { state: 'processing' };
    purchase = await db.purchase.findUniqueOrThrow({ where: { id: purchase.id } });
  }
  const key = await db.apiKey.findUniqueOrThrow({ where: { id: purchase.apiKeyId! }, include: { packageVersion: true } });
  if (purchase.kind === 'top_up') return { state: 'topped_up', prefix: key.prefix, units: purchase.units };
  const secret = input.browserToken ? await revealOnce(db, purchase.id, input.browserToken) : null;
  if (secret) return { state: 'revealed', key: secret, prefix: key.prefix, packageName: key.packageVersion.name, units: key.totalUnits };
  return { state: 'key_issued', prefix: key.prefix, packageName: key.packageVersion.name };
}

interface SealedRow {
  secret_iv: Buffer;
  secret_ciphertext: Buffer;
  secret_auth_tag: Buffer;
}

/** The secret, when this browser started the checkout and it was not shown yet; deleted in the same transaction. */
async function revealOnce(db: PrismaClient, purchaseId: string, browserToken: string): Promise<string | null> {
  return db.$transaction(async (tx) => {
    const rows = await tx.$queryRaw<SealedRow[]>`
      SELECT secret_iv, secret_ciphertext, secret_auth_tag FROM purchases
      WHERE id = ${purchaseId}::uuid AND browser_token_hash = ${sha256Hex(browserToken)} AND secret_ciphertext IS NOT NULL
      FOR UPDATE`;
    const row = rows[0];
    if (!row) return null;
    const secret = openWithConfiguredSecret(sealedSecretLabel(purchaseId), {
      iv: row.secret_iv,
      ciphertext: row.secret_ciphertext,
      authTag: row.secret_auth_tag,
    });
    await tx.purchase.update({
      where: { id: purchaseId },
      data: { secretIv: null, secretCiphertext: null, secretAuthTag: null, revealedAt: new Date() },
    });
    return secret;
  });
}
