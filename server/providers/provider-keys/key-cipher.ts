import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';

// AES-256-GCM for provider keys at rest. The 256-bit key is derived from the operator's secret
// with HKDF-SHA256, and the provider's name is the associated data: a ciphertext copied onto
// another provider's row does not decrypt.

export interface SealedKey {
  iv: Buffer;
  ciphertext: Buffer;
  authTag: Buffer;
}

/** The secret cannot open this key: it was sealed under another PROVIDER_KEYS_SECRET, or altered. */
export class ProviderKeyDecryptError extends Error {
  constructor(provider: string) {
    super(`the stored key of provider ${provider} cannot be decrypted with this PROVIDER_KEYS_SECRET`);
    this.name = 'ProviderKeyDecryptError';
  }
}

function aesKey(secret: string): Buffer {
  return Buffer.from(hkdfSync('sha256', secret, 'wgs-provider-keys', 'aes-256-gcm', 32));
}

export function sealProviderKey(secret: string, provider: string, apiKey: string): SealedKey {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', aesKey(secret), iv);
  cipher.setAAD(Buffer.from(provider, 'utf8'));
  const ciphertext = Buffer.concat([cipher.update(apiKey, 'utf8'), cipher.final()]);
  return { iv, ciphertext, authTag: cipher.getAuthTag() };
}

export function openProviderKey(secret: string, provider: string, sealed: SealedKey): string {
  try {
    const decipher = createDecipheriv('aes-256-gcm', aesKey(secret), sealed.iv);
    decipher.setAAD(Buffer.from(provider, 'utf8'));
    decipher.setAuthTag(sealed.authTag);
    return Buffer.concat([decipher.update(sealed.ciphertext), decipher.final()]).toString('utf8');
  } catch {
    throw new ProviderKeyDecryptError(provider);
  }
}
