import type Stripe from 'stripe';
import sql from 'sql-template-tag';
import type { SqlDb } from '../../db/client';
import type { PrismaClient, Purchase } from '../../db/generated/client';
import { prepared } from '../../db/named-statement';
import { retrieveCheckoutSession } from '../../payments/checkout-sessions';
import { sha256Hex } from '../canonical-json';
import { fulfilCheckout } from './fulfil-checkout';
import { revealOnce } from './sold-key-secret';
import type { CheckoutPageState, KeyIssued } from '../../contract/sales-pages';

// What the success page shows. When the webhook has not arrived yet, the page fulfils the session
// itself (Stripe's word on payment_status, the same exactly-once rule), but Stripe is asked only
// for the browser that started the checkout (or, for a top-up, the portal session of its key), and
// at most once per session every STRIPE_CHECK_SECONDS across all instances: a stranger with the
// link, or a reload loop, cannot spend the merchant's Stripe rate limit. The secret is revealed
// once, to the browser whose cookie started the checkout, and deleted as it is shown.

export const STRIPE_CHECK_SECONDS = 5;

/** Who is looking: the tokens of the browser's checkout cookie, or the portal session's key (a top-up's return). */
export interface CheckoutViewer {
  browserTokens?: readonly string[];
  keyId?: string;
}

/** The viewer's token that started this checkout, if one did. */
const startingToken = (purchase: Purchase, viewer: CheckoutViewer): string | undefined =>
  viewer.browserTokens?.find((token) => purchase.browserTokenHash === sha256Hex(token));

const askedBy = (purchase: Purchase, viewer: CheckoutViewer): boolean =>
  startingToken(purchase, viewer) !== undefined ||
  (viewer.keyId !== undefined && purchase.kind === 'top_up' && purchase.apiKeyId === viewer.keyId);

/** Takes the session's turn to ask Stripe (one conditional UPDATE, so instances and reloads share it). */
async function takeStripeCheck(db: SqlDb, purchaseId: string): Promise<boolean> {
  const { rowCount } = await db.pool.query(
    prepared(
      'wgs-purchase-take-stripe-check',
      sql`UPDATE purchases SET stripe_checked_at = clock_timestamp()
           WHERE id = ${purchaseId}::uuid AND status = 'open'
             AND (stripe_checked_at IS NULL OR stripe_checked_at <= clock_timestamp() - make_interval(secs => ${STRIPE_CHECK_SECONDS}))`,
    ),
  );
  return (rowCount ?? 0) > 0;
}

/**
 * An open purchase: Stripe asked (when this viewer may, and its turn came), fulfilled when paid; the
 * purchase read again after, as the webhook may have fulfilled it meanwhile (then the turn is not
 * taken: it is no longer open).
 */
async function settleOpen(db: PrismaClient, sqlDb: SqlDb, stripe: Stripe, purchase: Purchase, viewer: CheckoutViewer): Promise<Purchase> {
  if (!askedBy(purchase, viewer) || !purchase.stripeSessionId) return purchase;
  if (await takeStripeCheck(sqlDb, purchase.id)) {
    const outcome = await retrieveCheckoutSession(stripe, purchase.stripeSessionId).catch(() => null);
    if (outcome) await fulfilCheckout(db, outcome);
  }
  return db.purchase.findUniqueOrThrow({ where: { id: purchase.id } });
}

export async function checkoutPageState(
  db: PrismaClient,
  sqlDb: SqlDb,
  stripe: Stripe,
  input: { sessionId: string } & CheckoutViewer,
): Promise<CheckoutPageState> {
  let purchase = await db.purchase.findUnique({ where: { stripeSessionId: input.sessionId } });
  if (!purchase) return { state: 'unknown' };
  if (purchase.status === 'open') purchase = await settleOpen(db, sqlDb, stripe, purchase, input);
  if (purchase.status === 'open') return { state: 'processing' };
  if (purchase.status === 'expired' || purchase.status === 'refused') return { state: purchase.status };
  const key = await db.apiKey.findUniqueOrThrow({ where: { id: purchase.apiKeyId! }, include: { packageVersion: true } });
  if (purchase.kind === 'top_up') return { state: 'topped_up', prefix: key.prefix, units: purchase.units };
  const token = startingToken(purchase, input);
  const secret = token ? await revealOnce(sqlDb, purchase.id, token) : null;
  if (secret) return { state: 'revealed', key: secret, prefix: key.prefix, packageName: key.packageVersion.name, units: key.totalUnits };
  // The browser that started it found none to show: it was shown (maybe a moment ago, in another of its tabs) or deleted.
  const secretState: KeyIssued['secret'] = purchase.secretPurgedAt ? 'deleted' : purchase.revealedAt || token ? 'shown' : 'waiting';
  return { state: 'key_issued', prefix: key.prefix, packageName: key.packageVersion.name, secret: secretState };
}
