import { getConfig } from '../../config';
import { isServiceVariable } from '../../config/service-variables';
import { metadataHostOf } from '../../providers/metadata-hosts';
import { isProviderType, PROVIDER_TYPE_INFO } from '../../contract/provider-types';
import { ApiError, type ValidationIssue } from '../errors';

// A provider entry must not be turned against the service (docs/providers.md, "Provider
// settings"): its `api_key_env` names only a provider key variable (an allowlist: the type's own,
// a name ending in _API_KEY, WGS_PROVIDER_KEY_*, PROVIDER_KEY_ENV_ALLOWED; never another type's own),
// never one the service reads itself, and its
// `base_url` is never a cloud metadata or link-local address. The packages file (CLI) and the
// dashboard's provider form pass through here before anything is written, and the engine
// resolver asks again before it reads a key (a row written before the rule is refused).

/** Names starting with this hold a provider's key by the service's own convention. */
export const PROVIDER_KEY_PREFIX = 'WGS_PROVIDER_KEY_';

/**
 * Names that say they hold an API key, by the providers' own convention (OPENAI_API_KEY, and
 * CONTRACT.md §7's example MAIN_API_KEY): not a database password or a CI token that happens to sit
 * in the server's environment.
 */
const API_KEY_NAME = /^[A-Z][A-Z0-9_]*_API_KEY$/;

/** Every type's own key variable: one type's is never sent to another type's server. */
const CONVENTIONAL_KEY_ENVS = new Set(Object.values(PROVIDER_TYPE_INFO).map((info) => info.keyEnv));

/** The type's own conventional key variable (OPENAI_API_KEY for openai), if it has one. */
export function conventionalKeyEnv(type: string): string | null {
  return isProviderType(type) ? PROVIDER_TYPE_INFO[type].keyEnv : null;
}

/** Why a provider of `type` may not take its key from the variable `name`; undefined when it may. */
export function apiKeyEnvProblem(
  type: string,
  name: string,
  allowed: readonly string[] = getConfig().PROVIDER_KEY_ENV_ALLOWED,
): string | undefined {
  if (isServiceVariable(name)) return `${name} is a variable the service itself reads; name one that holds only this provider's key`;
  const own = conventionalKeyEnv(type);
  if (name === own || allowed.includes(name)) return undefined;
  if (CONVENTIONAL_KEY_ENVS.has(name)) return `${name} is another provider type's key variable; name ${own ?? `one ending in _API_KEY`}`;
  if (API_KEY_NAME.test(name) || (name.startsWith(PROVIDER_KEY_PREFIX) && name.length > PROVIDER_KEY_PREFIX.length)) return undefined;
  const ownText = own ? `${own} (the ${type} type's own), ` : '';
  return `${name} is not a provider key variable: name ${ownText}one ending in _API_KEY, one starting with ${PROVIDER_KEY_PREFIX}, or one the owner lists in PROVIDER_KEY_ENV_ALLOWED`;
}

interface GuardedEntry {
  type: string;
  api_key_env?: string | null;
  base_url?: string | null;
}

/** Each way this entry could be turned against the service, as one issue on each field. */
export function providerEntryIssues(entry: GuardedEntry, prefix: string): ValidationIssue[] {
  const at = (field: string) => (prefix ? `${prefix}.${field}` : field);
  const issues: ValidationIssue[] = [];
  const keyProblem = entry.api_key_env ? apiKeyEnvProblem(entry.type, entry.api_key_env) : undefined;
  if (keyProblem) {
    const code = isServiceVariable(entry.api_key_env!) ? 'service_variable' : 'not_provider_key_variable';
    issues.push({ path: at('api_key_env'), code, message: `${at('api_key_env')}: ${keyProblem}` });
  }
  const host = entry.base_url ? metadataHostOf(entry.base_url) : undefined;
  if (host) {
    issues.push({
      path: at('base_url'),
      code: 'metadata_address',
      message: `${at('base_url')}: ${host} is a cloud metadata or link-local address, never a provider's`,
    });
  }
  return issues;
}

/** Refuses the unsafe entries with one 422 naming every unsafe field (its message the issue's own when there is one). */
export function refuseUnsafeProviders(entries: Readonly<Record<string, GuardedEntry>>, prefix: (name: string) => string): void {
  const issues = Object.entries(entries).flatMap(([name, entry]) => providerEntryIssues(entry, prefix(name)));
  if (issues.length > 0) throw ApiError.validation(issues, issues.length === 1 ? undefined : 'The packages file is invalid.');
}
