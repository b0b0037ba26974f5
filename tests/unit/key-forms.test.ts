import { describe, expect, it } from 'vitest';
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
