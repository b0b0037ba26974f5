// Who performs an audited action: a signed-in operator, the CLI, the system itself, or a customer
// in the portal (id: their key's id).
export interface Actor {
  type: 'operator' | 'cli' | 'system' | 'customer';
  id?: string;
  label: string;
}

export const CLI_ACTOR: Actor = { type: 'cli', label: 'cli' };
export const SYSTEM_ACTOR: Actor = { type: 'system', label: 'system' };
