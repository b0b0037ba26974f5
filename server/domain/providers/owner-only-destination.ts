import { isProviderType, PROVIDER_TYPE_INFO } from '../../contract/provider-types';
import { actsAsOwner, type Actor } from '../actor';
import { ApiError } from '../errors';

// A key from the environment goes wherever its provider points: an admin who could create a
// provider with `api_key_env: ANTHROPIC_API_KEY` and a base_url of their choosing, or move an
// existing one, could read the key on their own server. So where such a key is sent is the
// owner's decision (the same role that stores keys): saving an env-keyed provider with a base_url
// other than its type's default, or changing the type or base_url of one, needs the owner role.
// The packages file (CLI) and the dashboard's form both pass through here.

export interface ProviderDestination {
  type: string;
  baseUrl: string | null;
  apiKeyEnv: string | null;
}

const withoutTrailingSlash = (url: string) => url.replace(/\/+$/, '');

/** Whether base_url is the type's public default (absent, or written out as it). */
export function isDefaultBaseUrl(type: string, baseUrl: string | null): boolean {
  if (baseUrl === null) return true;
  if (!isProviderType(type) || PROVIDER_TYPE_INFO[type].baseUrlRequired) return false;
  return withoutTrailingSlash(baseUrl) === withoutTrailingSlash(PROVIDER_TYPE_INFO[type].defaultBaseUrl);
}

/** Where the key goes: the type's default, or the base_url as written (without a trailing slash). */
const destinationOf = (provider: ProviderDestination) =>
  isDefaultBaseUrl(provider.type, provider.baseUrl) ? null : withoutTrailingSlash(provider.baseUrl!);

/** The field of this change that only an owner may make, or undefined. */
export function ownerOnlyField(
  before: ProviderDestination | null,
  after: ProviderDestination,
): 'type' | 'base_url' | 'api_key_env' | undefined {
  const envKeyed = after.apiKeyEnv !== null || (before?.apiKeyEnv ?? null) !== null;
  if (!envKeyed) return undefined;
  if (before && before.type !== after.type) return 'type';
  if (before && destinationOf(before) !== destinationOf(after)) return 'base_url';
  if (after.apiKeyEnv === null || isDefaultBaseUrl(after.type, after.baseUrl)) return undefined;
  if (!before) return 'base_url';
  return before.apiKeyEnv !== after.apiKeyEnv ? 'api_key_env' : undefined;
}

/** Refuses (403) an operator below owner the change ownerOnlyField names, with one line naming the field. */
export function refuseUnlessOwner(actor: Actor, prefix: string, before: ProviderDestination | null, after: ProviderDestination): void {
  const field = ownerOnlyField(before, after);
  if (!field || actsAsOwner(actor)) return;
  const path = prefix ? `${prefix}.${field}` : field;
  const variable = after.apiKeyEnv ?? before?.apiKeyEnv;
  throw new ApiError('forbidden', {
    message:
      `${path}: this needs the owner role: the provider's key comes from the environment (${variable}), ` +
      "and only an owner decides which server it is sent to (a base_url other than the type's default, or a new type or base_url)",
    details: { issues: [{ path, code: 'owner_only', message: `${path}: needs the owner role` }] },
  });
}
