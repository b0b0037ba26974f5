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
  /** The type's extras: azure's resource_name names the host when base_url is absent. */
  options?: unknown;
}

type OwnerOnlyField = 'type' | 'base_url' | 'resource_name' | 'api_key_env';

const withoutTrailingSlash = (url: string) => url.replace(/\/+$/, '');

/** Whether base_url is the type's public default (absent, or written out as it). */
export function isDefaultBaseUrl(type: string, baseUrl: string | null): boolean {
  if (baseUrl === null) return true;
  if (!isProviderType(type) || PROVIDER_TYPE_INFO[type].baseUrlRequired) return false;
  return withoutTrailingSlash(baseUrl) === withoutTrailingSlash(PROVIDER_TYPE_INFO[type].defaultBaseUrl);
}

/**
 * Where the key goes: null for the type's public default; else the base_url as written (without a
 * trailing slash), or for azure the resource its host is named after (an Azure resource of
 * anyone's choosing is as much another server as another base_url).
 */
function destinationOf(provider: ProviderDestination): { field: OwnerOnlyField; at: string } | null {
  if (!isDefaultBaseUrl(provider.type, provider.baseUrl)) return { field: 'base_url', at: withoutTrailingSlash(provider.baseUrl!) };
  const resource = (provider.options as { resource_name?: string } | null | undefined)?.resource_name;
  return provider.type === 'azure' ? { field: 'resource_name', at: resource ?? '' } : null;
}

/** The field of this change that only an owner may make, or undefined. */
export function ownerOnlyField(before: ProviderDestination | null, after: ProviderDestination): OwnerOnlyField | undefined {
  const envKeyed = after.apiKeyEnv !== null || (before?.apiKeyEnv ?? null) !== null;
  if (!envKeyed) return undefined;
  if (before && before.type !== after.type) return 'type';
  const [from, to] = [before ? destinationOf(before) : null, destinationOf(after)];
  if (before && from?.at !== to?.at) return to?.field ?? from?.field ?? 'base_url';
  if (after.apiKeyEnv === null || to === null) return undefined;
  if (!before) return to.field;
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
      "and only an owner decides which server it is sent to (a base_url other than the type's default, an Azure resource, or a new type or base_url)",
    details: { issues: [{ path, code: 'owner_only', message: `${path}: needs the owner role` }] },
  });
}
