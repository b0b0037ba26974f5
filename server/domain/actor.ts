import type { OperatorRole } from '../contract/dashboard/roles';

// Who performs an audited action: a signed-in operator, the CLI, the system itself, or a customer
// in the portal (id: their key's id).
export interface Actor {
  type: 'operator' | 'cli' | 'system' | 'customer';
  id?: string;
  label: string;
  /** A signed-in operator's role (the dashboard sets it); the CLI and the system have none. */
  role?: OperatorRole;
}

export const CLI_ACTOR: Actor = { type: 'cli', label: 'cli' };
export const SYSTEM_ACTOR: Actor = { type: 'system', label: 'system' };

/**
 * Whether the actor may do what needs the owner role. The CLI runs on the host with the
 * database's credentials (nothing is above it), and the system applies only the owner's own
 * files; an operator needs the role, and one whose role is not known is not an owner.
 */
export function actsAsOwner(actor: Actor): boolean {
  return actor.type === 'cli' || actor.type === 'system' || actor.role === 'owner';
}
