import { createElement } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import { purchaseNote } from '@/components/sales/purchases-table';
import { SaleFlags } from '@/components/sales/sale-flags';
import type { PurchaseView } from '@/server/trpc/outputs';

// A disputed purchase's note, and the key page's banner, say what became of its key now: they
// said "suspended by the dispute" after an operator had reinstated the key, and offered to revoke
// a revoked one (admin pages audits).

const disputed = {
  amount_refunded: 0,
  refusal: null,
  units_reclaimed: 0,
  disputed_at: '2026-12-01T10:00:00.000Z',
} as PurchaseView;

describe('purchaseNote', () => {
  it("follows the disputed purchase's key: suspended, reinstated or revoked", () => {
    expect(purchaseNote(disputed, 'suspended')).toBe('key suspended by the dispute');
    expect(purchaseNote(disputed, 'active')).toBe('key reinstated after the dispute');
    expect(purchaseNote(disputed, 'revoked')).toBe('key revoked');
    expect(purchaseNote(disputed, null)).toBe('disputed');
  });

  it('says why a purchase was refused, and what a refund took back, first', () => {
    expect(purchaseNote({ ...disputed, refusal: 'package archived' }, 'suspended')).toBe(
      'package archived: nothing issued; refund it in Stripe',
    );
    expect(purchaseNote({ ...disputed, units_reclaimed: 1200 }, 'active')).toBe('1,200 unspent units taken back');
    expect(purchaseNote({ ...disputed, disputed_at: null }, 'active')).toBe('—');
  });
});

describe('SaleFlags', () => {
  const flags = (status: string) => renderToStaticMarkup(createElement(SaleFlags, { purchases: [disputed], status }));

  it("says what the key is now: suspended, revoked, or active and not revoked by itself (it offered a revoked key's revocation)", () => {
    expect(flags('suspended')).toContain('It is suspended: the API refuses it until you reinstate or revoke it');
    expect(flags('revoked')).toContain('It is revoked.');
    expect(flags('revoked')).not.toContain('revoke it if');
    expect(flags('active')).toContain('It is not revoked automatically');
  });
});
