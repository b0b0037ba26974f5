import type { Prisma } from '../../db/generated/client';
import { PG_INTEGER_MAX } from '../../contract/pg-integer';
import type { ValidationIssue } from '../errors';
import { keyInactivity } from '../keys/key-status';
import { isUuid } from '../uuid';

// The statements that move a key's units outside a request's hold: units added (the operator's
// top-up and a paid Stripe top-up, one function for both) and units taken back (a refunded top-up).
// Each runs on the caller's transaction with the key's row locked, so nothing changes the balance
// between the checks and the update, and the caller's audit and purchase rows commit with it.

/** remaining_units is a PostgreSQL integer. */
export const MAX_REMAINING_UNITS = PG_INTEGER_MAX;

export interface KeyBalance {
  remainingUnits: number;
  totalUnits: number;
}

export type AddedUnits = { before: KeyBalance; after: KeyBalance } | { refused: ValidationIssue } | { missing: true };

interface LockedKey {
  status: string;
  expires_at: Date | null;
  remaining_units: number;
  total_units: number;
}

/**
 * Adds `units` to an active key whose balance stays within remaining_units' integer; refused (an
 * issue naming why) for an inactive key or a balance past it. `missing` when there is no such key.
 */
export async function addUnits(tx: Prisma.TransactionClient, keyId: string, units: number): Promise<AddedUnits> {
  if (!isUuid(keyId)) return { missing: true };
  const [key] = await tx.$queryRaw<LockedKey[]>`
    SELECT status, expires_at, remaining_units, total_units FROM api_keys WHERE id = ${keyId}::uuid FOR UPDATE`;
  if (!key) return { missing: true };
  const inactive = keyInactivity({ status: key.status, expiresAt: key.expires_at });
  if (inactive) {
    return {
      refused: { path: 'id', code: `key_${inactive}`, message: `API key ${keyId} is ${inactive}; an inactive key cannot be topped up.` },
    };
  }
  if (key.remaining_units + units > MAX_REMAINING_UNITS) {
    const largest = MAX_REMAINING_UNITS.toLocaleString('en-US');
    const message = `adding ${units} units would take the key past the largest balance, ${largest} units`;
    return { refused: { path: 'units', code: 'balance_too_large', message } };
  }
  const after = await tx.apiKey.update({
    where: { id: keyId },
    // The total counts what was ever granted; it stops at the integer's top rather than overflow.
    data: { remainingUnits: { increment: units }, totalUnits: { increment: Math.min(units, MAX_REMAINING_UNITS - key.total_units) } },
    select: { remainingUnits: true, totalUnits: true },
  });
  return { before: { remainingUnits: key.remaining_units, totalUnits: key.total_units }, after };
}

/** Takes back up to `owed` units: units already spent stay spent, only what the key still has goes back. */
export async function takeBackUnits(
  tx: Prisma.TransactionClient,
  keyId: string,
  owed: number,
): Promise<{ taken: number; remaining: number }> {
  const [row] = await tx.$queryRaw<{ taken: number; remaining: number }[]>`
    WITH before AS (SELECT remaining_units FROM api_keys WHERE id = ${keyId}::uuid FOR UPDATE)
    UPDATE api_keys k SET remaining_units = k.remaining_units - LEAST(${owed}::int, b.remaining_units)
      FROM before b WHERE k.id = ${keyId}::uuid
    RETURNING LEAST(${owed}::int, b.remaining_units) AS taken, k.remaining_units AS remaining`;
  return { taken: row?.taken ?? 0, remaining: row?.remaining ?? 0 };
}
