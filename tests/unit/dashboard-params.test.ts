import { describe, expect, it } from 'vitest';
import { formatExpiry, param, truncated } from '@/components/ui/format';

// Dashboard pages read their filters from the query string with `param`.

describe('param', () => {
  it('takes the first value, trimmed, and only an allowed one when a list is given', () => {
    expect(param({ actor: ['  a@b.c ', 'x'] }, 'actor')).toBe('a@b.c');
    expect(param({ status: 'active' }, 'status', ['active', 'revoked'])).toBe('active');
    expect(param({ status: 'other' }, 'status', ['active', 'revoked'])).toBeUndefined();
    expect(param({ actor: '   ' }, 'actor')).toBeUndefined();
  });

  it('ignores a value holding U+0000, which PostgreSQL cannot compare (the query behind the page failed)', () => {
    expect(param({ actor: 'a\u0000b' }, 'actor')).toBeUndefined();
  });
});

describe('truncated', () => {
  it('cuts long text with an ellipsis, never inside an emoji (the audit log showed half of one)', () => {
    expect(truncated('short', 60)).toBe('short');
    expect(truncated('abcdef', 3)).toBe('abc…');
    // '🚀' is two UTF-16 units: a cut between them would leave a lone surrogate (shown as �).
    expect(truncated('ab🚀cd', 3)).toBe('ab…');
    expect(truncated('ab🚀cd', 4)).toBe('ab🚀…');
  });
});

describe('formatExpiry', () => {
  it('says the last day a key works when it ends at midnight UTC, as the form asked for it', () => {
    expect(formatExpiry('2027-01-01T00:00:00.000Z')).toBe('works through 2026-12-31 UTC');
    expect(formatExpiry('2027-01-01T12:30:00.000Z')).toBe('at 2027-01-01 12:30:00 UTC');
    expect(formatExpiry(null)).toBe('never');
  });
});
