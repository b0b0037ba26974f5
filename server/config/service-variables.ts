import { settings } from './config-settings';

/**
 * Variables the service reads outside the configuration schema, or that hold its credentials by
 * convention: OAuth sign-in, Node's and PostgreSQL's own, storage SDKs, tracing, anything named a
 * secret. Never a provider's key, even when PROVIDER_KEY_ENV_ALLOWED lists one.
 */
const SERVICE_VARIABLE_PATTERNS: readonly RegExp[] = [
  /SECRET/, // every *_SECRET, *_SECRET_ACCESS_KEY, ...
  /^(DATABASE|REDIS|POSTGRES|PG)[A-Z0-9_]*$/, // the database and the counters, as libpq and clients read them
  /^(GITHUB|GOOGLE)_(CLIENT_)?(ID|SECRET)$/, // OAuth sign-in (server/auth/auth-options.ts)
  /^WGS_(?!PROVIDER_KEY_)/, // the service's own prefix, but for its provider key variables
  /^(NEXTAUTH|NEXT|OTEL|SESSION|NODE|FFMPEG|S3|BLOB|VERCEL|NEXT_PUBLIC)_/, // the service's own prefixes and its libraries'
  /^AWS_(ACCESS_KEY_ID|SECRET_ACCESS_KEY|SESSION_TOKEN|WEB_IDENTITY_TOKEN_FILE|CONTAINER_CREDENTIALS_FULL_URI|CONTAINER_AUTHORIZATION_TOKEN|PROFILE)$/, // S3's credential chain
];

/** Every variable of the configuration schema (server/config/config-settings.ts). */
export const CONFIG_VARIABLES: readonly string[] = Object.keys(settings);

const CONFIG_SET = new Set(CONFIG_VARIABLES);

/** true when the service itself reads this variable, so it may never be a provider's key. */
export function isServiceVariable(name: string): boolean {
  return CONFIG_SET.has(name) || SERVICE_VARIABLE_PATTERNS.some((pattern) => pattern.test(name));
}
