import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';

// AES-256-GCM for secrets the service keeps at rest and must read back. The 256-bit key is derived
// from the operator's secret (PROVIDER_KEYS_SECRET) with HKDF-SHA256; the label is the associated
// data, so a ciphertext copied onto another row (another provider, key or purchase) does not open.
// The HKDF salt keeps its first user's name: changing it would orphan every stored secret.

export interface SealedSecret {
  iv: Buffer;
  ciphertext: Buffer;
  authTag: Buffer;
}

/** The secret cannot be opened: it was sealed under another PROVIDER_KEYS_SECRET or label, or altered. */
export class SecretDecryptError extends Error {
  constructor(label: string) {
    super(`the secret sealed for ${label} cannot be decrypted with this PROVIDER_KEYS_SECRET`);
    this.name = 'SecretDecryptError';
  }
}

function aesKey(secret: string): Buffer {
  return Buffer.from(hkdfSync('sha256', secret, 'wgs-provider-keys', 'aes-256-gcm', 32));
}

export function sealSecret(secret: string, label: string, plaintext: string): SealedSecret {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', aesKey(secret), iv);
  cipher.setAAD(Buffer.from(label, 'utf8'));
  const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return { iv, ciphertext, authTag: cipher.getAuthTag() };
}

export function openSecret(secret: string, label: string, sealed: SealedSecret): string {
  try {
    const decipher = createDecipheriv('aes-256-gcm', aesKey(secret), sealed.iv);
    decipher.setAAD(Buffer.from(label, 'utf8'));
    decipher.setAuthTag(sealed.authTag);
    return Buffer.concat([decipher.update(sealed.ciphertext), decipher.final()]).toString('utf8');
  } catch {
    throw new SecretDecryptError(label);
  }
}
