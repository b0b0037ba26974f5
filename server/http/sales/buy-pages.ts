import { getPrisma, getSqlDb } from '../../db/client';
import type { CatalogueEntry, CheckoutPageState } from '../../contract/sales-pages';
import { checkoutPageState } from '../../domain/sales/checkout-page';
import { listCatalogue } from '../../domain/sales/sale-terms';
import { getStripe } from '../../payments/stripe-client';
import { pageData } from '../page-answer';
import { checkoutCookieOf } from './checkout-start';

// What the public pages /buy and /buy/success render (they stay thin: a call each). The database
// away is answered 503 with Retry-After under `npm start` (page-answer.ts).

export async function cataloguePage(): Promise<{ selling: false } | { selling: true; packages: CatalogueEntry[] }> {
  if (!getStripe()) return { selling: false };
  return { selling: true, packages: await pageData(() => listCatalogue(getPrisma())) };
}

export async function successPage(
  sessionId: string | undefined,
  cookieHeader: string | null,
): Promise<CheckoutPageState | { state: 'off' }> {
  const stripe = getStripe();
  if (!stripe) return { state: 'off' };
  if (!sessionId || !/^cs_[A-Za-z0-9_]{1,200}$/.test(sessionId)) return { state: 'unknown' };
  return pageData(() => checkoutPageState(getPrisma(), getSqlDb(), stripe, { sessionId, browserTokens: checkoutCookieOf(cookieHeader) }));
}
