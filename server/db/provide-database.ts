import { getConfig } from '../config';
import { startEmbeddedPostgres } from './embedded-postgres';
import { migrateDatabase } from './migrate';

export interface ProvidedDatabase {
  url: string;
  embedded: boolean;
  stop(): Promise<void>;
}

/**
 * DATABASE_URL when set; otherwise the embedded PostgreSQL of the data dir, started or
 * shared. Migrations are applied either way, and the URL is exported for the rest of the process.
 */
export async function provideDatabase({
  adopt = false,
  log = () => {},
  beforeStop,
}: { adopt?: boolean; log?: (line: string) => void; beforeStop?: () => Promise<void> } = {}): Promise<ProvidedDatabase> {
  const config = getConfig();
  const database = config.DATABASE_URL
    ? { url: config.DATABASE_URL, embedded: false, stop: async () => {} }
    : { ...(await startEmbeddedPostgres({ dataDir: config.dataDir, adopt, log, beforeStop })), embedded: true };
  try {
    await migrateDatabase(database.url, { log });
  } catch (error) {
    await database.stop();
    throw error;
  }
  process.env.DATABASE_URL = database.url;
  config.DATABASE_URL = database.url;
  return database;
}
