import type { PrismaClient } from '../../db/generated/client';
import { openWithConfiguredSecret } from '../../providers/provider-keys/stored-provider-keys';
import { sha256Hex } from '../canonical-json';
import { sealedSecretLabel } from './fulfil-checkout';

// A sold key's secret waits, sealed on its purchase, for the buyer's browser to show it once; one
// never shown is deleted SOLD_SECRET_RETENTION_HOURS after fulfilment.

interface SealedRow {
  secret_iv: Buffer;
  secret_ciphertext: Buffer;
  secret_auth_tag: Buffer;
}

/** The secret, when this browser started the checkout and it was not shown yet; deleted in the same transaction. */
export async function revealOnce(db: PrismaClient, purchaseId: string, browserToken: string): Promise<string | null> {
  return db.$transaction(async (tx) => {
    const rows = await tx.$queryRaw<SealedRow[]>`
      SELECT secret_iv, secret_ciphertext, secret_auth_tag FROM purchases
      WHERE id = ${purchaseId}::uuid AND browser_token_hash = ${sha256Hex(browserToken)} AND secret_ciphertext IS NOT NULL
      FOR UPDATE`;
    const row = rows[0];
    if (!row) return null;
    const secret = openWithConfiguredSecret(sealedSecretLabel(purchaseId), {
      iv: row.secret_iv,
      ciphertext: row.secret_ciphertext,
      authTag: row.secret_auth_tag,
    });
    await tx.purchase.update({
      where: { id: purchaseId },
      data: { secretIv: null, secretCiphertext: null, secretAuthTag: null, revealedAt: new Date() },
    });
    return secret;
  });
}

/** Housekeeping: deletes the sealed secrets no browser showed within `hours` of fulfilment. */
export async function purgeUnrevealedSecrets(db: PrismaClient, hours: number, now = new Date()): Promise<number> {
  const cutoff = new Date(now.getTime() - hours * 3_600_000);
  return db.$executeRaw`
    UPDATE purchases SET secret_iv = NULL, secret_ciphertext = NULL, secret_auth_tag = NULL, secret_purged_at = ${now}
     WHERE secret_ciphertext IS NOT NULL AND fulfilled_at < ${cutoff}`;
}
