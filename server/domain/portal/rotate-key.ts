import sql from 'sql-template-tag';
import type { SqlDb } from '../../db/client';
import { prepared } from '../../db/named-statement';
import { inPgTransaction } from '../../db/pg-transaction';
import type { Actor } from '../actor';
import { recordAuditOn } from '../audit/record-audit';
import { ApiError } from '../errors';
import { keyNotFound } from '../key-not-found';
import { forgetKeyHash } from '../keys/authenticate-key';
import { announceKeyHashChangeOn } from '../keys/key-cache-invalidation';
import { displayPrefix, generateKeySecret, hashKeySecret } from '../keys/key-secret';
import { isKeyActive } from '../key-status';

// A customer replaces their key's secret. The key keeps its id, so its units, package, usage,
// jobs, uploads and webhook stay; only the secret changes. The old secret is refused at once on
// every instance (the key cache is told in the same transaction), and the key's portal sessions end.
// The key's row is locked (FOR UPDATE, which the ORM cannot say), so the whole change is one pg transaction.

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
export async function rotateKeySecret(db: SqlDb, actor: Actor, apiKeyId: string, currentHash?: string): Promise<RotatedKey> {
  const secret = generateKeySecret();
  const prefix = displayPrefix(secret);
  const oldHash = await inPgTransaction(db.pool, async (client) => {
    const { rows } = await client.query<{ hash: string; prefix: string; status: string; expires_at: Date | null }>(
      prepared(
        'wgs-key-rotate-lock',
        sql`SELECT hash, prefix, status::text AS status, expires_at FROM api_keys WHERE id = ${apiKeyId}::uuid FOR UPDATE`,
      ),
    );
    const key = rows[0];
    if (!key) throw keyNotFound(apiKeyId);
    if (!isKeyActive({ status: key.status, expiresAt: key.expires_at }) || (currentHash !== undefined && key.hash !== currentHash))
      throw new ApiError('invalid_api_key');
    await client.query(
      prepared(
        'wgs-key-rotate-secret',
        sql`UPDATE api_keys SET hash = ${hashKeySecret(secret)}, prefix = ${prefix} WHERE id = ${apiKeyId}::uuid`,
      ),
    );
    await client.query(
      prepared(
        'wgs-key-rotate-end-portal-sessions',
        sql`UPDATE portal_sessions SET ended_at = ${new Date()} WHERE api_key_id = ${apiKeyId}::uuid AND ended_at IS NULL`,
      ),
    );
    await announceKeyHashChangeOn(client, key.hash);
    await recordAuditOn(client, actor, {
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
