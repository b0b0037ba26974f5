import type { Provider } from '../../db/generated/client';

/** A provider row's settings, in the shape a save writes: what an update is compared with and audits as `before`. */
export function storedSettings(provider: Pick<Provider, 'type' | 'baseUrl' | 'apiKeyEnv' | 'options' | 'prices'>) {
  const { type, baseUrl, apiKeyEnv, options, prices } = provider;
  return { type, baseUrl, apiKeyEnv, options, prices };
}
