import { getConfig, settleConfig } from '../config';
import { startEmbeddedPostgres } from './embedded-postgres';
import { migrateDatabase } from './migrate';
import pg from 'pg';
import { listenForErrors } from './pg-errors';
import { pendingMigrations, schemaBehindLine } from './schema-status';

export interface ProvidedDatabase {
  url: string;
  embedded: boolean;
  stop(): Promise<void>;
}

/**
 * DATABASE_URL when set; otherwise the embedded PostgreSQL of the data dir, started or
 * shared. Migrations are applied (the embedded database always; DATABASE_URL's unless `migrate`
 * is false, which instead refuses a schema that is behind), and the URL is settled in the
 * configuration for the rest of the process.
 */
export async function provideDatabase({
  adopt = false,
  log = () => {},
  beforeStop,
  migrate = true,
}: {
  adopt?: boolean;
  log?: (line: string) => void;
  beforeStop?: () => Promise<void>;
  migrate?: boolean;
} = {}): Promise<ProvidedDatabase> {
  const config = getConfig();
  const database = config.DATABASE_URL
    ? { url: config.DATABASE_URL, embedded: false, stop: async () => {} }
    : { ...(await startEmbeddedPostgres({ dataDir: config.dataDir, adopt, log, beforeStop })), embedded: true };
  try {
    if (migrate || database.embedded) await migrateDatabase(database.url, { log });
    else await refuseSchemaBehind(database.url);
  } catch (error) {
    await database.stop();
    throw error;
  }
  settleConfig({ DATABASE_URL: database.url });
  return database;
}

/** Throws the one line naming the first missing migration when the database is behind. */
async function refuseSchemaBehind(url: string): Promise<void> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 10_000 });
  listenForErrors(client);
  await client.connect();
  try {
    const pending = await pendingMigrations(client);
    if (pending.length > 0) throw new Error(schemaBehindLine(pending));
  } finally {
    await client.end().catch(() => {});
  }
}
