// The PostgreSQL settings the app's pools ask for when they connect (db/client.ts), in one place
// so that the bench's bare floor connects exactly as the product does.

/** Point lookups by index whatever the statistics say (PLAN_LOOKUPS_BY_INDEX). */
export const PLAN_BY_INDEX = 'enable_seqscan=off';

/** Commits that do not wait for the WAL flush (ASYNC_PROVISIONAL_COMMITS, provisional writes only). */
export const ASYNC_COMMIT = 'synchronous_commit=off';

/** A pg pool's `options` asking for `settings` at startup (`-c name=value`), if any. */
export function startupOptions(settings: string[]): { options?: string } {
  return settings.length > 0 ? { options: settings.map((setting) => `-c ${setting}`).join(' ') } : {};
}
