import { getConfig } from '../../config';
import { providerKeysSecret } from '../../config/runtime-secrets';
import { openProviderKey, sealProviderKey, type SealedKey } from './key-cipher';

// Provider keys set by an operator (CLI or dashboard), encrypted in `provider_keys` (the domain
// reads and writes the rows). Only the engine resolver ever decrypts one; nothing reads a key
// back out to show it.

export function sealWithConfiguredSecret(provider: string, apiKey: string): SealedKey {
  return sealProviderKey(providerKeysSecret(getConfig()), provider, apiKey);
}

/** A stored key opened with the configured secret. Throws ProviderKeyDecryptError. */
export function openWithConfiguredSecret(provider: string, sealed: SealedKey): string {
  return openProviderKey(providerKeysSecret(getConfig()), provider, sealed);
}
