import { CONFIG_VARIABLES } from '../../config';
import { metadataHostOf } from '../../providers/metadata-hosts';
import { ApiError, type ValidationIssue } from '../errors';

// A provider entry must not be turned against the service (docs/providers.md, "Provider
// settings"): its `api_key_env` may not name a variable the service reads itself (the key would
// be sent as a bearer token to a host of the operator's choice), and its `base_url` may not be a
// cloud metadata or link-local address. The packages file (CLI) and the dashboard's provider
// form both pass through here, before anything is written.

/**
 * Variables the service reads outside the configuration schema, or that hold its credentials by
 * convention: OAuth sign-in, Node's and PostgreSQL's own, storage SDKs, tracing, anything named a secret.
 */
const SERVICE_VARIABLE_PATTERNS: readonly RegExp[] = [
  /SECRET/, // every *_SECRET, *_SECRET_ACCESS_KEY, ...
  /^(DATABASE|REDIS|POSTGRES|PG)[A-Z0-9_]*$/, // the database and the counters, as libpq and clients read them
  /^(GITHUB|GOOGLE)_(CLIENT_)?(ID|SECRET)$/, // OAuth sign-in (server/auth/auth-options.ts)
  /^(NEXTAUTH|NEXT|WGS|OTEL|SESSION|NODE|FFMPEG|S3|BLOB|VERCEL|NEXT_PUBLIC)_/, // the service's own prefixes and its libraries'
  /^AWS_(ACCESS_KEY_ID|SECRET_ACCESS_KEY|SESSION_TOKEN|WEB_IDENTITY_TOKEN_FILE|CONTAINER_CREDENTIALS_FULL_URI|CONTAINER_AUTHORIZATION_TOKEN|PROFILE)$/, // S3's credential chain
];

const CONFIG_SET = new Set(CONFIG_VARIABLES);

/** true when the service itself reads this variable, so it may not be a provider's key. */
export function isServiceVariable(name: string): boolean {
  return CONFIG_SET.has(name) || SERVICE_VARIABLE_PATTERNS.some((pattern) => pattern.test(name));
}

interface GuardedEntry {
  api_key_env?: string | null;
  base_url?: string | null;
}

/** The first way this entry could be turned against the service, as one issue on its field. */
export function providerEntryIssue(entry: GuardedEntry, prefix: string): ValidationIssue | undefined {
  const at = (field: string) => (prefix ? `${prefix}.${field}` : field);
  if (entry.api_key_env && isServiceVariable(entry.api_key_env)) {
    return {
      path: at('api_key_env'),
      code: 'service_variable',
      message: `${at('api_key_env')}: ${entry.api_key_env} is a variable the service itself reads; name one that holds only this provider's key`,
    };
  }
  const host = entry.base_url ? metadataHostOf(entry.base_url) : undefined;
  if (host) {
    return {
      path: at('base_url'),
      code: 'metadata_address',
      message: `${at('base_url')}: ${host} is a cloud metadata or link-local address, never a provider's`,
    };
  }
  return undefined;
}

/** Refuses the first unsafe entry with one 422 whose message is that one line. */
export function refuseUnsafeProviders(entries: Readonly<Record<string, GuardedEntry>>, prefix: (name: string) => string): void {
  for (const [name, entry] of Object.entries(entries)) {
    const issue = providerEntryIssue(entry, prefix(name));
    if (issue) throw ApiError.validation([issue]);
  }
}
