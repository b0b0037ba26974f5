import { describe, expect, it } from 'vitest';
import { openSecret, SecretDecryptError, sealSecret } from '@/server/secrets/secret-cipher';

const SECRET = 'provider-keys-secret-0123456789abcdef';

describe('secrets at rest (AES-256-GCM, the label as associated data)', () => {
  it('round-trips, with a fresh IV each time and no plaintext in the ciphertext', () => {
    const one = sealSecret(SECRET, 'main', 'sk-live-abc123');
    const two = sealSecret(SECRET, 'main', 'sk-live-abc123');
    expect(one.iv).toHaveLength(12);
    expect(one.authTag).toHaveLength(16);
    expect(one.iv.equals(two.iv)).toBe(false);
    expect(one.ciphertext.toString('latin1')).not.toContain('sk-live');
    expect(openSecret(SECRET, 'main', one)).toBe('sk-live-abc123');
  });

  it('refuses another secret, another provider and an altered ciphertext', () => {
    const sealed = sealSecret(SECRET, 'main', 'sk-live-abc123');
    expect(() => openSecret(`${SECRET}x`, 'main', sealed)).toThrow(SecretDecryptError);
    expect(() => openSecret(SECRET, 'spare', sealed)).toThrow(SecretDecryptError);
    const altered = { ...sealed, ciphertext: Buffer.from(sealed.ciphertext) };
    altered.ciphertext[0]! ^= 1;
    expect(() => openSecret(SECRET, 'main', altered)).toThrow(SecretDecryptError);
    try {
      openSecret(`${SECRET}x`, 'main', sealed);
    } catch (error) {
      expect((error as Error).message).not.toContain('sk-live');
    }
  });
});
