import { createHash, randomUUID } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import sql from 'sql-template-tag';
import { prepared } from './named-statement';
import { listenForErrors } from './pg-errors';
import { CONNECTION_WAIT_MS } from './connection-wait';

// Applies prisma/migrations the way `prisma migrate deploy` does, writing the same
// `_prisma_migrations` history, so either tool can take over the same database. Prisma's
// schema engine cannot be downloaded on every machine; this runner needs only `pg`.

const ADVISORY_LOCK_ID = 72707369; // the key prisma migrate uses, so the two never interleave

const HISTORY_TABLE = `CREATE TABLE IF NOT EXISTS "_prisma_migrations" (
    "id"                    VARCHAR(36) PRIMARY KEY NOT NULL,
    "checksum"              VARCHAR(64) NOT NULL,
    "finished_at"           TIMESTAMPTZ,
    "migration_name"        VARCHAR(255) NOT NULL,
    "logs"                  TEXT,
    "rolled_back_at"        TIMESTAMPTZ,
    "started_at"            TIMESTAMPTZ NOT NULL DEFAULT now(),
    "applied_steps_count"   INTEGER NOT NULL DEFAULT 0
)`;

export interface MigrationFile {
  name: string;
  sql: string;
  checksum: string;
}

export function readMigrations(dir = join(process.cwd(), 'prisma', 'migrations')): MigrationFile[] {
  if (!existsSync(dir)) throw new Error(`No migrations folder at ${dir}`);
  return readdirSync(dir, { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && existsSync(join(dir, entry.name, 'migration.sql')))
    .map((entry) => entry.name)
    .sort()
    .map((name) => {
      const sql = readFileSync(join(dir, name, 'migration.sql'), 'utf8');
      return { name, sql, checksum: createHash('sha256').update(sql).digest('hex') };
    });
}

interface AppliedRow {
  migration_name: string;
  checksum: string;
  finished_at: Date | null;
  rolled_back_at: Date | null;
}

export async function migrateDatabase(
  databaseUrl: string,
  { log = () => {}, migrations = readMigrations() }: { log?: (line: string) => void; migrations?: MigrationFile[] } = {},
): Promise<string[]> {
  // Only connecting is timed: pg_advisory_lock below waits, rightly, for another instance's migration.
  const client = new pg.Client({ connectionString: databaseUrl, connectionTimeoutMillis: CONNECTION_WAIT_MS });
  listenForErrors(client);
  await client.connect();
  const applied: string[] = [];
  try {
    await client.query(prepared('wgs-migrate-lock', sql`SELECT pg_advisory_lock(${ADVISORY_LOCK_ID})`));
    await client.query(HISTORY_TABLE);
    const { rows } = await client.query<AppliedRow>(
      'SELECT migration_name, checksum, finished_at, rolled_back_at FROM "_prisma_migrations" ORDER BY started_at',
    );
    const failed = rows.find((row) => row.finished_at === null && row.rolled_back_at === null);
    if (failed) {
      throw new Error(
        `Migration ${failed.migration_name} failed earlier and was not resolved. Fix the database, then mark it ` +
          'rolled back (prisma migrate resolve --rolled-back NAME) before migrating again.',
      );
    }
    const done = new Map(rows.filter((row) => row.finished_at !== null).map((row) => [row.migration_name, row]));
    for (const migration of migrations) {
      const previous = done.get(migration.name);
      if (previous) {
        if (previous.checksum !== migration.checksum) {
          log(`warning: migration ${migration.name} was edited after it was applied`);
        }
        continue;
      }
      const id = randomUUID();
      await client.query(
        prepared(
          'wgs-migration-start',
          sql`INSERT INTO "_prisma_migrations" (id, checksum, migration_name, started_at, applied_steps_count)
              VALUES (${id}, ${migration.checksum}, ${migration.name}, now(), 0)`,
        ),
      );
      try {
        // One simple-protocol query: PostgreSQL runs the whole file in one implicit transaction.
        await client.query(migration.sql);
      } catch (error) {
        const message = error instanceof Error ? error.message : String(error);
        await client.query(prepared('wgs-migration-failed', sql`UPDATE "_prisma_migrations" SET logs = ${message} WHERE id = ${id}`));
        throw new Error(`Migration ${migration.name} failed: ${message}`);
      }
      await client.query(
        prepared(
          'wgs-migration-finished',
          sql`UPDATE "_prisma_migrations" SET finished_at = now(), applied_steps_count = 1 WHERE id = ${id}`,
        ),
      );
      applied.push(migration.name);
      log(`applied migration ${migration.name}`);
    }
  } finally {
    await client.query(prepared('wgs-migrate-unlock', sql`SELECT pg_advisory_unlock(${ADVISORY_LOCK_ID})`)).catch(() => {});
    await client.end();
  }
  return applied;
}
