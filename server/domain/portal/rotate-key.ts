import type { PrismaClient } from '../../db/generated/client';
import type { Actor } from '../actor';
import { recordAudit } from '../audit/record-audit';
import { ApiError } from '../errors';
import { forgetKeyHash } from '../keys/authenticate-key';
import { announceKeyHashChange } from '../keys/key-cache-invalidation';
import { displayPrefix, generateKeySecret, hashKeySecret } from '../keys/key-secret';
import { isKeyActive } from '../keys/key-status';

// A customer replaces their key's secret. The key keeps its id, so its units, package, usage,
// jobs, uploads and webhook stay; only the secret changes. The old secret is refused at once on
// every instance (the key cache is told in the same transaction), and the key's portal sessions end.

export interface RotatedKey {
  /** The new secret: shown once, never stored. */
  secret: string;
  prefix: string;
}

/** A customer actor for the portal's audited changes: the key acts on itself. */
export function customerActor(apiKeyId: string, keyPrefix: string): Actor {
  return { type: 'customer', id: apiKeyId, label: `key ${keyPrefix}` };
}

/**
 * With `currentHash` (the portal's session names the secret it signed in with), a key whose secret
 * changed meanwhile is refused: two rotations racing from one session give one new secret, not two.
 */
export async function rotateKeySecret(db: PrismaClient, actor: Actor, apiKeyId: string, currentHash?: string): Promise<RotatedKey> {
  const secret = generateKeySecret();
  const prefix = displayPrefix(secret);
  const oldHash = await db.$transaction(async (tx) => {
    const [key] = await tx.$queryRaw<{ hash: string; prefix: string; status: string; expires_at: Date | null }[]>`
      SELECT hash, prefix, status, expires_at FROM api_keys WHERE id = ${apiKeyId}::uuid FOR UPDATE`;
    if (!key) throw new ApiError('not_found', { message: `No API key with id "${apiKeyId}".` });
    if (!isKeyActive({ status: key.status, expiresAt: key.expires_at }) || (currentHash !== undefined && key.hash !== currentHash))
      throw new ApiError('invalid_api_key');
    await tx.apiKey.update({ where: { id: apiKeyId }, data: { hash: hashKeySecret(secret), prefix } });
    await tx.portalSession.updateMany({ where: { apiKeyId, endedAt: null }, data: { endedAt: new Date() } });
    await announceKeyHashChange(tx, key.hash);
    await recordAudit(tx, actor, {
      action: 'key.rotate',
      targetType: 'api_key',
      targetId: apiKeyId,
      before: { prefix: key.prefix },
      after: { prefix },
    });
    return key.hash;
  });
  // This instance forgets it too when it does not listen (the CLI, tests); the listener's notice may come later.
  forgetKeyHash(oldHash);
  return { secret, prefix };
}
