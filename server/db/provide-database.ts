import { getConfig, settleConfig } from '../config';
import { environmentCopy } from '../config/environment';
import { whereItPoints } from '../config/postgres-url';
import { holdsEmbeddedDatabase, startEmbeddedPostgres } from './embedded-postgres';
import { migrateDatabase } from './migrate';
import pg from 'pg';
import { listenForErrors } from './pg-errors';
import { CONNECTION_WAIT_MS } from './connection-wait';
import { pendingMigrations, schemaBehindLine } from './schema-status';

export interface ProvidedDatabase {
  url: string;
  embedded: boolean;
  stop(): Promise<void>;
}

/**
 * Whether the migrate step runs as production does: NODE_ENV=production in its environment (the
 * container image sets it) or --production. Then it creates no embedded database: a migrate Job
 * whose DATABASE_URL went missing must fail, not migrate a new database of its own and succeed.
 * (One that `npm start` made on the machine it still migrates. The operator CLI may create one: it
 * looks after a one-machine data dir from the artefact too.)
 */
export function toolRunsInProduction(env: NodeJS.ProcessEnv = environmentCopy(), argv: readonly string[] = process.argv): boolean {
  return env.NODE_ENV === 'production' || argv.includes('--production');
}

/**
 * DATABASE_URL when set; otherwise the embedded PostgreSQL of the data dir, started or
 * shared (with `createEmbedded` false, only one the data dir already holds: else an unset
 * DATABASE_URL is refused in one line).
 * Migrations are applied (the embedded database always; DATABASE_URL's unless `migrate`
 * is false, which instead refuses a schema that is behind), and the URL is settled in the
 * configuration for the rest of the process. A DATABASE_URL that cannot be reached is named.
 */
export async function provideDatabase({
  adopt = false,
  log = () => {},
  beforeStop,
  migrate = true,
  createEmbedded = true,
  borrow = false,
}: {
  adopt?: boolean;
  /** A command that is done in moments (the CLI, a migration): see startEmbeddedPostgres's `borrow`. */
  borrow?: boolean;
  log?: (line: string) => void;
  beforeStop?: () => Promise<void>;
  migrate?: boolean;
  createEmbedded?: boolean;
} = {}): Promise<ProvidedDatabase> {
  const config = getConfig();
  if (!config.DATABASE_URL && !createEmbedded && !holdsEmbeddedDatabase(config.dataDir)) {
    throw new Error(
      'DATABASE_URL is not set: in production (NODE_ENV=production, as in the container image, or --production) no embedded database is created; set it to the database the instances share',
    );
  }
  const database = config.DATABASE_URL
    ? { url: config.DATABASE_URL, embedded: false, stop: async () => {} }
    : {
        ...(await startEmbeddedPostgres({ dataDir: config.dataDir, adopt, borrow, log, beforeStop }).catch(namingDataDir)),
        embedded: true,
      };
  try {
    if (migrate || database.embedded) await migrateDatabase(database.url, { log });
    else await refuseSchemaBehind(database.url);
  } catch (error) {
    await database.stop();
    throw database.embedded ? error : namingDatabaseUrl(error, database.url);
  }
  settleConfig({ DATABASE_URL: database.url });
  return database;
}

/** Errors of reaching the server, or of being let in: network codes, and PostgreSQL's for a login or database refused. */
const CONNECTION_CODES = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ECONNRESET',
  '28P01',
  '28000',
  '3D000',
]);

/** pg's words for a server that took the connection and never answered. */
const NO_ANSWER = /connection timeout|timeout expired/i;

/** A connection failure as one line naming DATABASE_URL and where it points (never its password). */
function namingDatabaseUrl(error: unknown, url: string): unknown {
  const code = (error as { code?: unknown } | null)?.code;
  const message = error instanceof Error ? error.message : String(error);
  const silent = NO_ANSWER.test(message);
  if (!CONNECTION_CODES.has(String(code)) && !silent) return error;
  const reason = silent ? `no answer within ${CONNECTION_WAIT_MS / 1000} s (${message})` : message;
  return new Error(`DATABASE_URL: cannot use the database at ${whereItPoints(url)}: ${reason}`, { cause: error });
}

/** The data dir's own PostgreSQL running but not answering (stopped, swapped out) as one line naming it. */
function namingDataDir(error: unknown): never {
  const message = error instanceof Error ? error.message : String(error);
  if (!NO_ANSWER.test(message)) throw error;
  throw new Error(
    `the embedded PostgreSQL of ${getConfig().dataDir} is running but did not answer within ${CONNECTION_WAIT_MS / 1000} s (${message})`,
    { cause: error },
  );
}

/** Throws the one line naming the first missing migration when the database is behind. */
async function refuseSchemaBehind(url: string): Promise<void> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: CONNECTION_WAIT_MS });
  listenForErrors(client);
  await client.connect();
  try {
    const pending = await pendingMigrations(client);
    if (pending.length > 0) throw new Error(schemaBehindLine(pending));
  } finally {
    await client.end().catch(() => {});
  }
}
