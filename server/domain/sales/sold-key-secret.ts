import sql from 'sql-template-tag';
import type { SqlDb } from '../../db/client';
import type { PrismaClient } from '../../db/generated/client';
import { prepared } from '../../db/named-statement';
import { inPgTransaction } from '../../db/pg-transaction';
import { openWithConfiguredSecret, sealWithConfiguredSecret, type SealedSecret } from '../../secrets/sealed-secrets';
import { sha256Hex } from '../canonical-json';

// A sold key's secret waits, sealed on its purchase, for the buyer's browser to show it once; one
// never shown is deleted SOLD_SECRET_RETENTION_HOURS after fulfilment.

/** The AES-GCM associated data of a purchase's sealed secret: it opens on this purchase only. */
const sealedSecretLabel = (purchaseId: string) => `purchase:${purchaseId}`;

/** A sold key's secret, sealed for its purchase's row (server/secrets). */
export function sealSoldKeySecret(purchaseId: string, secret: string): SealedSecret {
  return sealWithConfiguredSecret(sealedSecretLabel(purchaseId), secret);
}

interface SealedRow {
  secret_iv: Buffer;
  secret_ciphertext: Buffer;
  secret_auth_tag: Buffer;
}

/** The secret, when this browser started the checkout and it was not shown yet; deleted in the same transaction. */
export async function revealOnce(db: SqlDb, purchaseId: string, browserToken: string): Promise<string | null> {
  return inPgTransaction(db.pool, async (client) => {
    const { rows } = await client.query<SealedRow>(
      prepared(
        'wgs-sold-secret-lock',
        sql`SELECT secret_iv, secret_ciphertext, secret_auth_tag FROM purchases
             WHERE id = ${purchaseId}::uuid AND browser_token_hash = ${sha256Hex(browserToken)} AND secret_ciphertext IS NOT NULL
               FOR UPDATE`,
      ),
    );
    const row = rows[0];
    if (!row) return null;
    const secret = openWithConfiguredSecret(sealedSecretLabel(purchaseId), {
      iv: row.secret_iv,
      ciphertext: row.secret_ciphertext,
      authTag: row.secret_auth_tag,
    });
    await client.query(
      prepared(
        'wgs-sold-secret-revealed',
        sql`UPDATE purchases SET secret_iv = NULL, secret_ciphertext = NULL, secret_auth_tag = NULL, revealed_at = ${new Date()}
             WHERE id = ${purchaseId}::uuid`,
      ),
    );
    return secret;
  });
}

/** Housekeeping: deletes the sealed secrets no browser showed within `hours` of fulfilment. */
export async function purgeUnrevealedSecrets(db: PrismaClient, hours: number, now = new Date()): Promise<number> {
  const cutoff = new Date(now.getTime() - hours * 3_600_000);
  const purged = await db.purchase.updateMany({
    where: { secretCiphertext: { not: null }, fulfilledAt: { lt: cutoff } },
    data: { secretIv: null, secretCiphertext: null, secretAuthTag: null, secretPurgedAt: now },
  });
  return purged.count;
}
