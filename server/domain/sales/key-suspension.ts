import type { Prisma, PrismaClient } from '../../db/generated/client';
import type { Actor } from '../actor';
import { recordAudit } from '../audit/record-audit';
import { lockKeyRow } from '../billing/key-balance';
import { ApiError } from '../errors';
import { keyNotFound } from '../key-not-found';
import { forgetKeyHash } from '../keys/authenticate-key';
import { announceKeyHashChange } from '../keys/key-cache-invalidation';
import { isUuid } from '../uuid';

// A dispute suspends the key it paid for: /v1 and the billing statements refuse any key that is
// not active (401 invalid_api_key, as a revoked one), every instance forgets its cached lookup
// when the suspension commits, and it stays so until an operator reinstates or revokes it.

/** Inside the caller's transaction: suspends an active key; returns its hash to forget here after commit, or null. */
export async function suspendKeyInTx(
  tx: Prisma.TransactionClient,
  actor: Actor,
  keyId: string,
  cause: { purchase_id: string; dispute_id: string | null; reason: string | null },
): Promise<string | null> {
  const key = await lockKeyRow(tx, keyId);
  if (!key || key.status !== 'active') return null;
  await tx.apiKey.update({ where: { id: keyId }, data: { status: 'suspended', suspendedAt: new Date() } });
  await announceKeyHashChange(tx, key.hash);
  await recordAudit(tx, actor, {
    action: 'key.suspend',
    targetType: 'api_key',
    targetId: keyId,
    before: { status: 'active' },
    after: { status: 'suspended', ...cause },
  });
  return key.hash;
}

/** The operator's decision for a suspended key: it works again (audited). Revoking is revokeKey's. */
export async function reinstateKey(db: PrismaClient, actor: Actor, keyId: string): Promise<{ id: string; status: 'active' }> {
  const hash = await db.$transaction(async (tx) => {
    const key = isUuid(keyId) ? await tx.apiKey.findUnique({ where: { id: keyId } }) : null;
    if (!key) throw keyNotFound(keyId);
    const moved = await tx.apiKey.updateMany({ where: { id: keyId, status: 'suspended' }, data: { status: 'active' } });
    if (moved.count === 0) {
      throw ApiError.validation([{ path: 'id', code: 'not_suspended', message: `API key ${keyId} is ${key.status}, not suspended.` }]);
    }
    // A lookup cached while it was suspended (a refusal) is forgotten too.
    await announceKeyHashChange(tx, key.hash);
    await recordAudit(tx, actor, {
      action: 'key.reinstate',
      targetType: 'api_key',
      targetId: keyId,
      before: { status: 'suspended' },
      after: { status: 'active' },
    });
    return key.hash;
  });
  forgetKeyHash(hash);
  return { id: keyId, status: 'active' };
}
