import type Stripe from 'stripe';
import type { PrismaClient } from '../../db/generated/client';
import { createCheckoutSession } from '../../payments/checkout-sessions';
import { PG_INTEGER_MAX } from '../../contract/pg-integer';
import { sha256Hex } from '../canonical-json';
import { ApiError } from '../errors';
import { toMinorUnits } from '../../contract/stripe-currency';
import { saleOf } from './sale-terms';
import { isKeyActive } from '../key-status';

// Starting a purchase: a row in `purchases` (its id goes to Stripe as metadata), then a Checkout
// Session priced from the package version. The session id is stored so a delivery or the success
// page can only ever fulfil the purchase that session was created for.

export interface CheckoutStart {
  purchaseId: string;
  sessionId: string;
  /** Stripe's hosted checkout page: redirect the buyer there. */
  url: string;
}

export interface CheckoutReturn {
  /** The origin the buyer came from (the success and cancel pages are on it). */
  origin: string;
  /** The random value of the buyer's httpOnly cookie; only its SHA-256 is stored. */
  browserToken?: string;
  /** Where Stripe sends the buyer after paying (default /buy/success) and on cancel (default /buy). */
  successPath?: string;
  cancelPath?: string;
}

export const SESSION_PLACEHOLDER = '{CHECKOUT_SESSION_ID}';

function returnUrls(back: CheckoutReturn) {
  const success = new URL(back.successPath ?? '/buy/success', back.origin);
  return {
    // Stripe fills the placeholder in; URLSearchParams would escape its braces.
    successUrl: `${success.href}${success.search ? '&' : '?'}session_id=${SESSION_PLACEHOLDER}`,
    cancelUrl: new URL(back.cancelPath ?? '/buy', back.origin).href,
  };
}

async function openSession(
  db: PrismaClient,
  stripe: Stripe,
  purchase: { id: string; kind: 'package' | 'top_up'; packageVersionId: string; amount: number; currency: string },
  text: { productName: string; description: string },
  back: CheckoutReturn,
): Promise<CheckoutStart> {
  const session = await createCheckoutSession(stripe, {
    purchaseId: purchase.id,
    kind: purchase.kind,
    packageVersionId: purchase.packageVersionId,
    amount: purchase.amount,
    currency: purchase.currency,
    ...text,
    ...returnUrls(back),
  }).catch(async (error: unknown) => {
    // No session to pay: the purchase ends now rather than stay open until the sweep's fallback.
    await db.purchase
      .updateMany({ where: { id: purchase.id, status: 'open' }, data: { status: 'expired', expiredAt: new Date() } })
      .catch(() => {});
    throw new ApiError('provider_unavailable', {
      message: 'Stripe could not start the checkout; nothing was charged. Try again.',
      cause: error,
    });
  });
  await db.purchase.update({ where: { id: purchase.id }, data: { stripeSessionId: session.id, expiresAt: session.expiresAt } });
  return { purchaseId: purchase.id, sessionId: session.id, url: session.url };
}

/** A Checkout Session for a new key on a package version that is for sale (its package's latest). */
export async function startPackageCheckout(
  db: PrismaClient,
  stripe: Stripe,
  input: { packageVersionId: string } & CheckoutReturn,
): Promise<CheckoutStart> {
  const version = await db.packageVersion.findUnique({ where: { id: input.packageVersionId }, include: { package: true } });
  const sale = version ? saleOf(version.sale) : null;
  if (!version || !sale || version.package.archivedAt || version.package.latestVersion !== version.version) {
    throw new ApiError('not_found', { message: 'This package is not for sale (any more): choose one from the catalogue.' });
  }
  const purchase = await db.purchase.create({
    data: {
      kind: 'package',
      packageVersionId: version.id,
      units: version.quotaUnits,
      amount: toMinorUnits(sale.price, sale.currency),
      currency: sale.currency,
      browserTokenHash: input.browserToken ? sha256Hex(input.browserToken) : null,
    },
  });
  const text = { productName: version.name, description: `An API key with ${version.quotaUnits.toLocaleString('en-US')} units` };
  return openSession(db, stripe, { ...purchase, kind: 'package' }, text, input);
}

/** A Checkout Session for a top-up pack of the key's own package version, bound to the key. */
export async function createTopUpCheckout(
  db: PrismaClient,
  stripe: Stripe,
  input: { keyId: string; units: number } & CheckoutReturn,
): Promise<CheckoutStart> {
  const key = await db.apiKey.findUnique({ where: { id: input.keyId }, include: { packageVersion: true } });
  if (!key || !isKeyActive(key)) throw new ApiError('not_found', { message: 'No active key to top up.' });
  const sale = saleOf(key.packageVersion.sale);
  const pack = sale?.top_ups.find((candidate) => candidate.units === input.units);
  if (!sale || !pack) {
    throw ApiError.validation([
      { path: 'units', code: 'no_such_top_up', message: "the key's package offers no top-up of that many units" },
    ]);
  }
  if (key.totalUnits + pack.units > PG_INTEGER_MAX) {
    throw ApiError.validation([{ path: 'units', code: 'too_many_units', message: 'the key cannot hold that many more units' }]);
  }
  const purchase = await db.purchase.create({
    data: {
      kind: 'top_up',
      packageVersionId: key.packageVersionId,
      apiKeyId: key.id,
      units: pack.units,
      amount: toMinorUnits(pack.price, sale.currency),
      currency: sale.currency,
      browserTokenHash: input.browserToken ? sha256Hex(input.browserToken) : null,
    },
  });
  const text = {
    productName: `${key.packageVersion.name}: top-up`,
    description: `${pack.units.toLocaleString('en-US')} more units for key ${key.prefix}…`,
  };
  return openSession(db, stripe, { ...purchase, kind: 'top_up' }, text, input);
}
