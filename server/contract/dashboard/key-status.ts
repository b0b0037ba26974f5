// What an operator sees a key as (the CLI, the dashboard's list and filter): its stored status, or
// `expired` once an active key's expiry has passed, which the API already refuses as inactive.

export const SHOWN_KEY_STATUSES = ['active', 'expired', 'revoked', 'suspended'] as const;
export type ShownKeyStatus = (typeof SHOWN_KEY_STATUSES)[number];
