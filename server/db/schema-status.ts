import type pg from 'pg';
import { readMigrations } from './migrate';

// Whether the database has every migration this code was built with. An instance started on a
// database that is behind refuses to serve (it would fail request by request instead), and
// GET /readyz reports it; migrations are applied by their own step (`npm run db:migrate`).

/** The command that applies migrations, as the refusal names it. */
export const MIGRATE_COMMAND =
  '`npm run db:migrate` (from the production build: `npm run db:migrate:production`, in the container image: node dist/migrate.js)';

let known: string[] | undefined;

/** The migrations this code ships (prisma/migrations), read once. */
export function knownMigrations(): string[] {
  known ??= readMigrations().map((migration) => migration.name);
  return known;
}

/** The migrations of `expected` the database has not applied (finished and not rolled back), in order. */
export async function pendingMigrations(client: Pick<pg.ClientBase, 'query'>, expected = knownMigrations()): Promise<string[]> {
  let applied: Set<string>;
  try {
    const { rows } = await client.query<{ migration_name: string }>(
      'SELECT migration_name FROM "_prisma_migrations" WHERE finished_at IS NOT NULL AND rolled_back_at IS NULL',
    );
    applied = new Set(rows.map((row) => row.migration_name));
  } catch (error) {
    if ((error as { code?: string }).code !== '42P01') throw error; // undefined_table: never migrated
    applied = new Set();
  }
  return expected.filter((name) => !applied.has(name));
}

/** The one line an instance that finds the schema behind stops with. */
export function schemaBehindLine(pending: string[]): string {
  const more = pending.length > 1 ? ` and ${pending.length - 1} later one${pending.length > 2 ? 's' : ''}` : '';
  return `the database schema is behind this code: migration ${pending[0]}${more} not applied; run ${MIGRATE_COMMAND} against this DATABASE_URL, then start again`;
}
