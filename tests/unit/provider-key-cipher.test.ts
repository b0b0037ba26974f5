import { describe, expect, it } from 'vitest';
import { openProviderKey, ProviderKeyDecryptError, sealProviderKey } from '@/server/providers/provider-keys/key-cipher';

const SECRET = 'provider-keys-secret-0123456789abcdef';

describe('provider keys at rest (AES-256-GCM)', () => {
  it('round-trips, with a fresh IV each time and no plaintext in the ciphertext', () => {
    const one = sealProviderKey(SECRET, 'main', 'sk-live-abc123');
    const two = sealProviderKey(SECRET, 'main', 'sk-live-abc123');
    expect(one.iv).toHaveLength(12);
    expect(one.authTag).toHaveLength(16);
    expect(one.iv.equals(two.iv)).toBe(false);
    expect(one.ciphertext.toString('latin1')).not.toContain('sk-live');
    expect(openProviderKey(SECRET, 'main', one)).toBe('sk-live-abc123');
  });

  it('refuses another secret, another provider and an altered ciphertext', () => {
    const sealed = sealProviderKey(SECRET, 'main', 'sk-live-abc123');
    expect(() => openProviderKey(`${SECRET}x`, 'main', sealed)).toThrow(ProviderKeyDecryptError);
    expect(() => openProviderKey(SECRET, 'spare', sealed)).toThrow(ProviderKeyDecryptError);
    const altered = { ...sealed, ciphertext: Buffer.from(sealed.ciphertext) };
    altered.ciphertext[0]! ^= 1;
    expect(() => openProviderKey(SECRET, 'main', altered)).toThrow(ProviderKeyDecryptError);
    try {
      openProviderKey(`${SECRET}x`, 'main', sealed);
    } catch (error) {
      expect((error as Error).message).not.toContain('sk-live');
    }
  });
});
