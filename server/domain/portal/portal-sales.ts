import type Stripe from 'stripe';
import { getConfig } from '../../config';
import type { SqlDb } from '../../db/client';
import type { PrismaClient } from '../../db/generated/client';
import { ApiError } from '../errors';
import { toMinorUnits } from '../../contract/stripe-currency';
import { checkoutPageState } from '../sales/checkout-page';
import { takeTopUpStart } from '../sales/checkout-rate';
import { listPurchasesForKey } from '../sales/list-purchases';
import { saleOf } from '../sales/sale-terms';
import { createTopUpCheckout } from '../sales/start-checkout';

// The portal's side of selling: the top-up packs the key's package offers, the key's receipts
// (Stripe's hosted receipt pages), a top-up checkout that comes back to the portal, and that return,
// which adds the units at once when the webhook has not yet (the selling core's exactly-once rule).

export interface PortalReceipt {
  id: string;
  kind: 'package' | 'top_up';
  state: string;
  units: number;
  /** A refunded top-up's units taken back from the key. */
  units_taken_back: number;
  /** In the currency's minor unit, as Stripe counts: what was paid, else the price. */
  amount: number;
  currency: string;
  receipt_url: string | null;
  created_at: string;
}

/** Why the portal offers no top-up: selling is off (no Stripe settings), the package sells none, or the key is not active (e.g. suspended). */
export type NoTopUpReason = 'selling_off' | 'none_offered' | 'key_not_active';

export interface PortalSales {
  /** False when selling is off, the package offers no top-up, or the key is not active: `noTopUpReason` says which. */
  canTopUp: boolean;
  noTopUpReason: NoTopUpReason | null;
  currency: string | null;
  topUps: { units: number; minor: number }[];
  receipts: PortalReceipt[];
}

export async function getPortalSales(
  db: PrismaClient,
  apiKeyId: string,
  terms: { sellingOn: boolean; keyActive: boolean },
): Promise<PortalSales> {
  const [key, purchases] = await Promise.all([
    db.apiKey.findUniqueOrThrow({ where: { id: apiKeyId }, select: { packageVersion: { select: { sale: true } } } }),
    listPurchasesForKey(db, apiKeyId),
  ]);
  const sale = saleOf(key.packageVersion.sale);
  const topUps = sale?.top_ups.map((pack) => ({ units: pack.units, minor: toMinorUnits(pack.price, sale.currency) })) ?? [];
  const noTopUpReason: NoTopUpReason | null = !terms.sellingOn
    ? 'selling_off'
    : topUps.length === 0
      ? 'none_offered'
      : !terms.keyActive
        ? 'key_not_active'
        : null;
  return {
    canTopUp: noTopUpReason === null,
    noTopUpReason,
    currency: sale?.currency ?? null,
    topUps,
    receipts: purchases.map((purchase) => ({
      id: purchase.id,
      kind: purchase.kind,
      state: purchase.state,
      units: purchase.units,
      units_taken_back: purchase.units_reclaimed,
      amount: purchase.amount_paid ?? purchase.amount,
      currency: purchase.currency,
      receipt_url: purchase.receipt_url,
      created_at: purchase.fulfilled_at ?? purchase.created_at,
    })),
  };
}

const sellingOff = () => new ApiError('not_found', { message: 'Top-ups are not on sale here.' });

/** A Checkout Session for one of the package's top-up packs, returning to the portal; limited per key and address. */
export async function startPortalTopUp(
  db: PrismaClient,
  sql: SqlDb,
  stripe: Stripe | null,
  input: { apiKeyId: string; units: number; origin: string; address: string },
): Promise<{ url: string }> {
  if (!stripe) throw sellingOff();
  await takeTopUpStart(sql, { keyId: input.apiKeyId, address: input.address, perMinute: getConfig().TOP_UP_STARTS_PER_MINUTE });
  const started = await createTopUpCheckout(db, stripe, {
    keyId: input.apiKeyId,
    units: input.units,
    origin: input.origin,
    successPath: '/portal',
    cancelPath: '/portal',
  });
  return { url: started.url };
}

/**
 * Back from Stripe with `session_id`: the top-up of this key that session paid for, its units
 * added now if the webhook has not done it (or why they never will be: expired, refused). Another key's session, or a package purchase, is not found.
 */
export async function topUpReturn(
  db: PrismaClient,
  sql: SqlDb,
  stripe: Stripe | null,
  input: { apiKeyId: string; sessionId: string },
): Promise<{ state: 'topped_up'; units: number } | { state: 'processing' | 'expired' | 'refused' }> {
  if (!stripe) throw sellingOff();
  const purchase = await db.purchase.findUnique({ where: { stripeSessionId: input.sessionId } });
  if (!purchase || purchase.kind !== 'top_up' || purchase.apiKeyId !== input.apiKeyId) {
    throw new ApiError('not_found', { message: 'No top-up of this key was paid in that checkout.' });
  }
  const state = await checkoutPageState(db, sql, stripe, { sessionId: input.sessionId, keyId: input.apiKeyId });
  if (state.state === 'topped_up') return { state: 'topped_up', units: state.units };
  // Expired unpaid, or paid an amount that is not the pack's price (refused: the operator was told): it will not complete.
  return { state: state.state === 'expired' || state.state === 'refused' ? state.state : 'processing' };
}
