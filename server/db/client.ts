import { PrismaPg } from '@prisma/adapter-pg';
import pg from 'pg';
import { getConfig } from '../config';
import { listenForErrors } from './pg-errors';
import { disconnectRedis } from './redis';
import { ASYNC_COMMIT, PLAN_BY_INDEX, startupOptions } from './startup-options';
import { PrismaClient } from './generated/client';
import { CONNECTION_WAIT_MS } from './connection-wait';

// One pool per process shared by Prisma (dashboard, CLI) and the raw SQL of the paid hot
// path, so both see the same connections and limits; and a small second pool for the hot
// path's provisional writes, which need no flush to disk before they answer.

/** The raw-SQL handles the paid path's use cases take: durable writes on `pool`, provisional ones on `provisional`. */
export interface SqlDb {
  pool: pg.Pool;
  provisional: pg.Pool;
}

interface DbHandles {
  pool: pg.Pool;
  provisionalPool: pg.Pool;
  prisma: PrismaClient;
  sql: SqlDb;
}

let open: DbHandles | undefined;

/**
 * A connection whose query went unanswered past query_timeout is closed, never reused: pg leaves
 * that query running on it, so inside a transaction the connection's next user would find itself
 * in a transaction that is not its own. Closed, it is dropped by the pool, and the server rolls
 * back whatever was open on it.
 */
export class ClosingOnTimeoutClient extends pg.Client {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  override query(...args: any[]): any {
    const last = args.length - 1;
    const callback: unknown = args[last];
    if (typeof callback === 'function') {
      args[last] = (error: unknown, result: unknown) => {
        this.closeIfTimedOut(error);
        (callback as (error: unknown, result: unknown) => void)(error, result);
      };
    }
    const result: unknown = (pg.Client.prototype.query as (...a: unknown[]) => unknown).apply(this, args);
    if (result instanceof Promise) result.catch((error: unknown) => this.closeIfTimedOut(error));
    return result;
  }

  private closeIfTimedOut(error: unknown): void {
    if (error instanceof Error && error.message === 'Query read timeout') {
      this.on('error', () => {}); // the end this causes is no news to anyone
      (this as unknown as { connection: { stream: { destroy(): void } } }).connection.stream.destroy();
    }
  }
}

function connect(): DbHandles {
  const config = getConfig();
  // A database that stops answering (a frozen server, a network partition) must not hold requests
  // forever: a connection, or a free one from the pool, is waited for 10 s and an answer to a query
  // DATABASE_QUERY_TIMEOUT_MS, then the request fails closed with 503 (and that connection is
  // closed). TCP keepalive probes an idle connection after 10 s.
  const liveness = {
    Client: ClosingOnTimeoutClient,
    idleTimeoutMillis: 30_000,
    connectionTimeoutMillis: CONNECTION_WAIT_MS,
    query_timeout: config.DATABASE_QUERY_TIMEOUT_MS,
    keepAlive: true,
    keepAliveInitialDelayMillis: 10_000,
  };
  // Point lookups by index whatever the statistics say: the paid statements' plans are cached,
  // and a plan made while api_keys or rate_windows held one page (few keys, just vacuumed) scans
  // the whole table on every call once it has grown hundreds of pages of dead row versions.
  const planOptions = config.PLAN_LOOKUPS_BY_INDEX === 'true' ? [PLAN_BY_INDEX] : [];
  const url = config.DATABASE_URL;
  if (!url) {
    throw new Error('DATABASE_URL is not set: start the product with `npm start`, which provides a database.');
  }
  const pool = new pg.Pool({ connectionString: url, max: 20, ...liveness, ...startupOptions(planOptions) });
  // A dropped connection (database restart) must not crash the process; the next query reconnects.
  // The pool listens on idle clients only: a client checked out (a transaction waiting on other
  // work) that loses its connection would throw an uncaught 'error'. Its query fails instead.
  pool.on('error', () => {});
  pool.on('connect', listenForErrors);
  // Writes a crash may lose without harm (see getProvisionalPool) commit without waiting for
  // the WAL flush. Each commit's flush costs more CPU than the statement itself.
  const provisionalPool = new pg.Pool({
    connectionString: url,
    max: 10,
    ...liveness,
    ...startupOptions([...planOptions, ...(config.ASYNC_PROVISIONAL_COMMITS === 'true' ? [ASYNC_COMMIT] : [])]),
  });
  provisionalPool.on('error', () => {});
  provisionalPool.on('connect', listenForErrors);
  // A transaction waits for a connection as long as a query does: Prisma's own default (2 s)
  // failed operator writes while the paid path held the pool's connections for a moment.
  const prisma = new PrismaClient({
    adapter: new PrismaPg(pool),
    transactionOptions: { maxWait: CONNECTION_WAIT_MS },
    // The failure alone ("Can't reach database server at …"), not Prisma's excerpt of the calling
    // source file, which the CLI printed as its error and logs would carry.
    errorFormat: 'minimal',
  });
  return { pool, provisionalPool, prisma, sql: { pool, provisional: provisionalPool } };
}

function handles(): DbHandles {
  open ??= connect();
  return open;
}

export function getPrisma(): PrismaClient {
  return handles().prisma;
}

export function getPool(): pg.Pool {
  return handles().pool;
}

/**
 * For writes whose loss in a crash of the database's machine harms nothing: the idempotency
 * claim, the rate-limit count, the unit hold. They commit without waiting for the WAL flush
 * (synchronous_commit=off: atomic and immediately visible, only not yet on disk). The durable
 * commit that settles the request (capture or release, on getPool) flushes the WAL up to and
 * including them; a request that never got there never succeeded, and losing its claim or hold
 * frees the key and returns the units, exactly as the lease and the sweeper would.
 */
export function getProvisionalPool(): pg.Pool {
  return handles().provisionalPool;
}

export function getSqlDb(): SqlDb {
  return handles().sql;
}

/** Closes every connection to the shared stores (PostgreSQL pools, and Redis when used). */
export async function disconnectDb(): Promise<void> {
  await disconnectRedis();
  const current = open;
  open = undefined;
  if (!current) return;
  await current.prisma.$disconnect();
  await current.pool.end();
  await current.provisionalPool.end();
}
