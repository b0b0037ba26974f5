import { getConfig } from '../../config';
import { getPool } from '../../db/client';
import { providerKeysSecret } from '../../runtime-secrets';
import { openProviderKey, sealProviderKey, type SealedKey } from './key-cipher';

// Provider keys set by an operator (CLI or dashboard), encrypted in `provider_keys`. Only the
// engine resolver ever decrypts one; nothing reads a key back out to show it.

export function sealWithConfiguredSecret(provider: string, apiKey: string): SealedKey {
  return sealProviderKey(providerKeysSecret(getConfig()), provider, apiKey);
}

/** The operator-set key of a provider, decrypted; undefined when none is stored. Throws ProviderKeyDecryptError. */
export async function readStoredProviderKey(provider: string): Promise<string | undefined> {
  const { rows } = await getPool().query<{ iv: Buffer; ciphertext: Buffer; auth_tag: Buffer }>({
    name: 'wgs-provider-key',
    text: 'SELECT iv, ciphertext, auth_tag FROM provider_keys WHERE provider = $1',
    values: [provider],
  });
  const row = rows[0];
  if (!row) return undefined;
  return openProviderKey(providerKeysSecret(getConfig()), provider, { iv: row.iv, ciphertext: row.ciphertext, authTag: row.auth_tag });
}
