import type { Prisma, PrismaClient } from '../../db/generated/client';
import type { SqlDb } from '../../db/client';
import { SecretDecryptError } from '../../secrets/secret-cipher';
import { openWithConfiguredSecret, sealWithConfiguredSecret } from '../../secrets/sealed-secrets';

// A key's webhook signing secret at rest: sealed with the provider-key cipher (AES-256-GCM under
// PROVIDER_KEYS_SECRET) in `webhook_secrets`, `webhook:<api key id>` as the associated data (a
// provider name cannot hold a colon, so no provider key and no other key's secret opens it).
// Secrets written in plain text before this (api_keys.webhook_secret) are sealed at start.

const aadOf = (apiKeyId: string) => `webhook:${apiKeyId}`;

/** The secret cannot be opened: sealed under another PROVIDER_KEYS_SECRET, or altered. */
export class WebhookSecretDecryptError extends Error {
  constructor(apiKeyId: string) {
    super(`the webhook signing secret of key ${apiKeyId} cannot be decrypted with this PROVIDER_KEYS_SECRET`);
    this.name = 'WebhookSecretDecryptError';
  }
}

export interface SealedSecretRow {
  iv: Uint8Array;
  ciphertext: Uint8Array;
  auth_tag: Uint8Array;
}

/** Stores the key's secret sealed, and empties any plain-text copy, in the caller's transaction. */
export async function storeWebhookSecret(tx: Prisma.TransactionClient, apiKeyId: string, secret: string): Promise<void> {
  const sealed = sealWithConfiguredSecret(aadOf(apiKeyId), secret);
  const data = {
    iv: new Uint8Array(sealed.iv),
    ciphertext: new Uint8Array(sealed.ciphertext),
    authTag: new Uint8Array(sealed.authTag),
    updatedAt: new Date(),
  };
  await tx.webhookSecret.upsert({ where: { apiKeyId }, create: { apiKeyId, ...data }, update: data });
  await tx.apiKey.update({ where: { id: apiKeyId }, data: { webhookSecret: null } });
}

export async function deleteWebhookSecret(tx: Prisma.TransactionClient, apiKeyId: string): Promise<void> {
  await tx.webhookSecret.deleteMany({ where: { apiKeyId } });
}

/** The key's secret, opened. Throws WebhookSecretDecryptError. */
export function openWebhookSecret(apiKeyId: string, row: SealedSecretRow): string {
  try {
    return openWithConfiguredSecret(aadOf(apiKeyId), {
      iv: Buffer.from(row.iv),
      ciphertext: Buffer.from(row.ciphertext),
      authTag: Buffer.from(row.auth_tag),
    });
  } catch (error) {
    if (error instanceof SecretDecryptError) throw new WebhookSecretDecryptError(apiKeyId);
    throw error;
  }
}

/**
 * Seals one key's plain-text secret (written before secrets were sealed) and empties the column,
 * only if it still holds that value: safe on many instances at once. Returns the secret.
 */
export async function sealLegacySecret(db: PrismaClient, apiKeyId: string, plaintext: string): Promise<string> {
  await db.$transaction(async (tx) => {
    const { count } = await tx.apiKey.updateMany({ where: { id: apiKeyId, webhookSecret: plaintext }, data: { webhookSecret: null } });
    if (count === 1) await storeWebhookSecret(tx, apiKeyId, plaintext);
  });
  return plaintext;
}

/** Seals every plain-text secret left from before (start of every instance). Returns how many. */
export async function sealLegacyWebhookSecrets(db: PrismaClient, sql: SqlDb): Promise<number> {
  const { rows } = await sql.pool.query<{ id: string; webhook_secret: string }>(
    'SELECT id, webhook_secret FROM api_keys WHERE webhook_secret IS NOT NULL',
  );
  for (const row of rows) await sealLegacySecret(db, row.id, row.webhook_secret);
  return rows.length;
}
