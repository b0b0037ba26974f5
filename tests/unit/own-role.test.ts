import { describe, expect, it } from 'vitest';
import { ownRoleChange } from '@/components/operators/own-role';
import { roleAllows } from '@/server/contract/dashboard/roles';

// On Operators an owner set their own role to viewer without a question, and the page then said
// "404 Page not found" (dashboard audit): one's own role change asks first, and an operator who is
// no longer an owner is taken to a page their role can see.

describe("an operator's own role change", () => {
  it('asks before an owner steps down, saying they leave the Operators page, and leaves for one the new role sees', () => {
    for (const to of ['viewer', 'admin'] as const) {
      const change = ownRoleChange('owner', to);
      expect(change.question).toBe(`Change your own role from owner to ${to}?`);
      expect(change.consequence).toMatch(/only an owner manages operators, so you leave this page for the overview/);
      // The overview (/) needs only a viewer: the page after the change is one the new role can see.
      expect(change.leaveFor).toBe('/');
      expect(roleAllows(to, 'viewer')).toBe(true);
    }
  });

  it('stays on the page when the new role still sees it', () => {
    expect(ownRoleChange('admin', 'owner').leaveFor).toBeNull();
  });
});
