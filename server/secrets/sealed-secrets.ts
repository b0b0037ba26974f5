import { getConfig } from '../config';
import { providerKeysSecret } from '../config/runtime-secrets';
import { openSecret, sealSecret, type SealedSecret } from './secret-cipher';

// Secrets sealed with the configured PROVIDER_KEYS_SECRET, each under the label of the row it is
// stored on: the provider keys an operator sets (opened only to call the provider), the job
// webhooks' signing secrets (opened to sign each delivery), and a sold key's secret on its purchase
// (opened once, to show it to the buyer's browser, then deleted). None is logged or sent elsewhere.

export type { SealedSecret };

export function sealWithConfiguredSecret(label: string, plaintext: string): SealedSecret {
  return sealSecret(providerKeysSecret(getConfig()), label, plaintext);
}

/** A sealed secret opened with the configured secret. Throws SecretDecryptError. */
export function openWithConfiguredSecret(label: string, sealed: SealedSecret): string {
  return openSecret(providerKeysSecret(getConfig()), label, sealed);
}
