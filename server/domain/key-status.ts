// The one rule for "this key is active", wherever it is decided (authentication, uploads, top-ups,
// rotation, the portal): its status is `active` and its expiry, if it has one, is still ahead. A
// suspended key (a disputed payment) is not active; the portal still signs it in to show it.

import type { ShownKeyStatus } from '../contract/dashboard/key-status';

export type KeyStatus = 'active' | 'revoked' | 'suspended';

/** Why a key may not be used now, or null while it is active. */
export type KeyInactivity = Exclude<KeyStatus, 'active'> | 'expired';

export function keyInactivity(key: { status: string; expiresAt: Date | null }, now = new Date()): KeyInactivity | null {
  if (key.status !== 'active') return key.status === 'suspended' ? 'suspended' : 'revoked';
  return key.expiresAt && key.expiresAt.getTime() <= now.getTime() ? 'expired' : null;
}

/** What an operator sees a key as (SHOWN_KEY_STATUSES). */
export const shownKeyStatus = (key: { status: string; expiresAt: Date | null }, now = new Date()): ShownKeyStatus =>
  keyInactivity(key, now) ?? 'active';

export const isKeyActive = (key: { status: string; expiresAt: Date | null }, now = new Date()): boolean => keyInactivity(key, now) === null;
