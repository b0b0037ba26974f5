import { describe, expect, it } from 'vitest';
import { buyerEmailError } from '@/components/sales/key-owner';
import { keyIssueInput, keyLabelInput } from '@/server/contract/dashboard/key-forms';

// A key's label is shown in the CLI's `keys list` (a terminal) and on pages: no control characters.
describe("the dashboard's key label", () => {
  it('takes text up to 200 characters, trimmed', () => {
    expect(keyLabelInput.parse({ label: '  Acme — production  ' })).toEqual({ label: 'Acme — production' });
    expect(keyIssueInput.parse({ packageSlug: 'starter', label: 'Acme' })).toMatchObject({ label: 'Acme' });
    expect(keyLabelInput.parse({ label: null })).toEqual({ label: null });
  });

  it('refuses control characters, an empty label at issue, and more than 200 characters', () => {
    for (const label of ['a\u001b[31mb', 'first\nsecond', 'tab\there', 'c1\u009bcontrol']) {
      expect(keyLabelInput.safeParse({ label }).success, JSON.stringify(label)).toBe(false);
      expect(keyIssueInput.safeParse({ packageSlug: 'starter', label }).success, JSON.stringify(label)).toBe(false);
    }
    expect(keyIssueInput.safeParse({ packageSlug: 'starter', label: '   ' }).success).toBe(false);
    expect(keyLabelInput.safeParse({ label: 'x'.repeat(201) }).success).toBe(false);
  });
});

// The key page's buyer e-mail past 254 characters said `Too big: expected string to have <=254
// characters` (dashboard audit): the form says it with the key forms' phrasing, before the call.
describe("the key page's buyer e-mail", () => {
  it('names the field and its bound, and takes an address of 254 characters or an empty field', () => {
    const long = `${'a'.repeat(243)}@example.com`;
    expect(long).toHaveLength(255);
    expect(buyerEmailError(long)).toBe("Buyer's e-mail must be at most 254 characters");
    expect(buyerEmailError(long.slice(1))).toBeNull();
    expect(buyerEmailError('   ')).toBeNull();
  });
});
