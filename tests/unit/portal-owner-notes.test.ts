import { describe, expect, it } from 'vitest';
import { confirmationNote, noChangeReason } from '@/components/portal/portal-webhook-card';
import type { PortalOwner } from '@/server/trpc/outputs';

// What the portal tells a buyer about changes to their key: where they are confirmed only when the
// portal can confirm them. Without mail, the header promised e-mails its own cards said could not
// be sent (outside audit).

const owner = (over: Partial<PortalOwner>): PortalOwner => ({
  status: 'active',
  suspended_at: null,
  email: 'b•••@example.com',
  can_change: true,
  contact: 'ops@example.com',
  ...over,
});

describe("the portal's notes on changes", () => {
  it('names the e-mail changes are confirmed by only when they can be', () => {
    expect(confirmationNote(owner({}))).toBe(' Changes are confirmed by e-mail to b•••@example.com.');
    expect(confirmationNote(owner({ can_change: false }))).toBe('');
    expect(noChangeReason(owner({ can_change: false }))).toBe(
      'Changes are confirmed by e-mail, which this service cannot send: ask ops@example.com.',
    );
    expect(confirmationNote(owner({ email: null, can_change: false }))).toBe('');
  });
});
