// Who performs an operator action: a signed-in operator, the CLI, or the system itself.
export interface Actor {
  type: 'operator' | 'cli' | 'system';
  id?: string;
  label: string;
}

export const CLI_ACTOR: Actor = { type: 'cli', label: 'cli' };
export const SYSTEM_ACTOR: Actor = { type: 'system', label: 'system' };
