import type { History, PaymentRecord } from '../../history';
import type { BookPurchase } from '../books';
import type { Invariant, Violation } from '../invariant';
import type { Links } from '../links';
import { toppedUp } from './units';

// Each Checkout Session the fake Stripe was paid for gives exactly one key, or adds its top-up's
// units to its key exactly once, however its events were delivered (twice, out of order, racing
// the buyer's return); one that was never paid gives nothing.

function purchaseProblems(payment: PaymentRecord, purchase: BookPurchase | undefined, links: Links): string[] {
  if (!purchase) return payment.paid ? ['paid, but no purchase in the database'] : [];
  if (!payment.paid)
    return purchase.status === 'open' && purchase.keysIssued === 0
      ? []
      : [`never paid, but ${purchase.status} with ${purchase.keysIssued} keys`];
  if (purchase.status !== 'fulfilled') return [`paid, but the purchase is ${purchase.status}`];
  if (payment.kind === 'key' && purchase.keysIssued !== 1) return [`paid for a key, ${purchase.keysIssued} keys issued`];
  if (payment.kind === 'top-up' && purchase.keyId !== (payment.key ? links.keyIdOf(payment.key) : undefined))
    return [`a top-up of ${payment.key}, fulfilled on key ${purchase.keyId}`];
  return [];
}

function unitsSoldProblems(history: History, books: { keys: { id: string; total: number }[] }): Violation[] {
  const violations: Violation[] = [];
  for (const key of history.keys) {
    const row = books.keys.find((k) => k.id === key.id);
    const sold = key.quota + toppedUp(history, key);
    if (row && row.total !== sold)
      violations.push({ subject: `key ${key.name}`, message: `${row.total} units sold on the books, ${sold} paid for` });
  }
  return violations;
}

export const checkoutsFulfilledOnce: Invariant = {
  name: 'checkout-fulfilled-once',
  description: 'each paid checkout gives one key or one top-up, each unpaid one nothing',
  check(history, books, links: Links) {
    const violations: Violation[] = [];
    for (const payment of history.payments) {
      const purchase = books.purchases.find((p) => p.sessionId === payment.sessionId);
      for (const message of purchaseProblems(payment, purchase, links))
        violations.push({ subject: `checkout ${payment.sessionId}`, message });
    }
    const started = new Set(history.payments.map((p) => p.sessionId));
    const ours = new Set(history.keys.map((key) => key.id));
    for (const purchase of books.purchases) {
      const unknown = purchase.status === 'fulfilled' && (!purchase.sessionId || !started.has(purchase.sessionId));
      if (unknown && (!purchase.keyId || ours.has(purchase.keyId)))
        violations.push({ subject: `purchase ${purchase.id}`, message: 'fulfilled, but no checkout of the run paid for it' });
    }
    violations.push(...unitsSoldProblems(history, books));
    return { checked: history.payments.length + history.keys.length, violations };
  },
};
