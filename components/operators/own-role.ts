import { roleAllows, type OperatorRole } from '@/server/contract/dashboard/roles';

// An owner who changes their own role asks first (as Disable does), and one who is no longer an
// owner leaves the Operators page for one their new role can see, rather than its 404.

export interface OwnRoleChange {
  question: string;
  consequence: string;
  /** Where to go once the role changed: the overview when the Operators page is no longer theirs; null to stay. */
  leaveFor: string | null;
}

/** The question an operator answers before changing their own role from `from` to `to`. */
export function ownRoleChange(from: OperatorRole, to: OperatorRole): OwnRoleChange {
  const keeps = roleAllows(to, 'owner');
  return {
    question: `Change your own role from ${from} to ${to}?`,
    consequence: keeps
      ? 'It applies at once, to this session too.'
      : 'It applies at once, to this session too: only an owner manages operators, so you leave this page for the overview, and only another owner can make you an owner again.',
    leaveFor: keeps ? null : '/',
  };
}
