import type { PrismaClient } from '../../db/generated/client';
import type { Actor } from '../actor';
import { recordAudit } from '../audit/record-audit';
import { ApiError } from '../errors';
import { keyNotFound } from '../key-not-found';
import { KEY_INCLUDE, toKeyView, type KeyView } from '../keys/key-view';
import { addUnits } from './key-balance';

/**
 * The operator's top-up (dashboard, CLI): adds units in one atomic increment on the locked row, so
 * a top-up never races with requests spending units. A key that is not active can never spend
 * them, so it is refused rather than sold units; so is a balance past the integer's top.
 */
export async function topUpKey(db: PrismaClient, actor: Actor, id: string, units: number): Promise<KeyView> {
  if (!Number.isInteger(units) || units < 1 || units > 1_000_000_000) {
    throw ApiError.validation([{ path: 'units', code: 'invalid', message: 'units must be a whole number from 1 to 1,000,000,000' }]);
  }
  return db.$transaction(async (tx) => {
    const added = await addUnits(tx, id, units);
    if ('missing' in added) throw keyNotFound(id);
    if ('refused' in added) throw ApiError.validation([added.refused]);
    await recordAudit(tx, actor, {
      action: 'key.topup',
      targetType: 'api_key',
      targetId: id,
      before: { remaining_units: added.before.remainingUnits },
      after: { remaining_units: added.after.remainingUnits, added: units },
    });
    return toKeyView(await tx.apiKey.findUniqueOrThrow({ where: { id }, include: KEY_INCLUDE }));
  });
}
