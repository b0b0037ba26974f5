import type { Prisma } from '../../db/generated/client';
import { PG_INTEGER_MAX } from '../../contract/pg-integer';
import type { ValidationIssue } from '../errors';
import { keyInactivity } from '../key-status';
import { isUuid } from '../uuid';

// The statements that move a key's units outside a request's hold: units added (the operator's
// top-up and a paid Stripe top-up, one function for both) and units taken back (a refunded top-up).
// Each runs on the caller's Prisma transaction with the key's row locked, so nothing changes the
// balance between the checks and the update, and the caller's audit and purchase rows commit with
// it. The ORM has no FOR UPDATE: the lock is taken by an update that changes nothing (lockKeyRow).

/** remaining_units is a PostgreSQL integer. */
export const MAX_REMAINING_UNITS = PG_INTEGER_MAX;

export interface KeyBalance {
  remainingUnits: number;
  totalUnits: number;
}

export type AddedUnits = { before: KeyBalance; after: KeyBalance } | { refused: ValidationIssue } | { missing: true };

/**
 * Locks the key's row until the caller's transaction ends and reads it (null: no such key): an
 * UPDATE that adds nothing takes the row's update lock (as SELECT … FOR NO KEY UPDATE), so every
 * other change of the key (a hold, a capture, a rotation) waits for the transaction.
 */
export async function lockKeyRow(tx: Prisma.TransactionClient, keyId: string) {
  if (!isUuid(keyId)) return null;
  const [key] = await tx.apiKey.updateManyAndReturn({
    where: { id: keyId },
    data: { remainingUnits: { increment: 0 } },
    select: { status: true, expiresAt: true, remainingUnits: true, totalUnits: true, hash: true },
  });
  return key ?? null;
}

/**
 * Adds `units` to an active key whose balance stays within remaining_units' integer; refused (an
 * issue naming why) for an inactive key or a balance past it. `missing` when there is no such key.
 */
export async function addUnits(tx: Prisma.TransactionClient, keyId: string, units: number): Promise<AddedUnits> {
  const key = await lockKeyRow(tx, keyId);
  if (!key) return { missing: true };
  const inactive = keyInactivity(key);
  if (inactive) {
    return {
      refused: { path: 'id', code: `key_${inactive}`, message: `API key ${keyId} is ${inactive}; an inactive key cannot be topped up.` },
    };
  }
  const largest = MAX_REMAINING_UNITS.toLocaleString('en-US');
  if (key.remainingUnits + units > MAX_REMAINING_UNITS) {
    const message = `adding ${units} units would take the key past the largest balance, ${largest} units`;
    return { refused: { path: 'units', code: 'balance_too_large', message } };
  }
  // The total counts what was ever granted (total - remaining = what was used): refused rather than
  // capped, so that the key's books still add up.
  if (key.totalUnits + units > MAX_REMAINING_UNITS) {
    const message = `adding ${units} units would take the units granted to the key past the largest total, ${largest}; issue a new key`;
    return { refused: { path: 'units', code: 'total_too_large', message } };
  }
  const after = await tx.apiKey.update({
    where: { id: keyId },
    data: { remainingUnits: { increment: units }, totalUnits: { increment: units } },
    select: { remainingUnits: true, totalUnits: true },
  });
  return { before: { remainingUnits: key.remainingUnits, totalUnits: key.totalUnits }, after };
}

/** Takes back up to `owed` units: units already spent stay spent, only what the key still has goes back. */
export async function takeBackUnits(
  tx: Prisma.TransactionClient,
  keyId: string,
  owed: number,
): Promise<{ taken: number; remaining: number }> {
  const key = await lockKeyRow(tx, keyId);
  if (!key) return { taken: 0, remaining: 0 };
  const taken = Math.max(0, Math.min(owed, key.remainingUnits));
  if (taken === 0) return { taken, remaining: key.remainingUnits };
  const after = await tx.apiKey.update({
    where: { id: keyId },
    data: { remainingUnits: { decrement: taken } },
    select: { remainingUnits: true },
  });
  return { taken, remaining: after.remainingUnits };
}
