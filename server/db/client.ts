import { PrismaPg } from '@prisma/adapter-pg';
import pg from 'pg';
import { getConfig } from '../config';
import { PrismaClient } from './generated/client';

// One pool per process, shared by Prisma (dashboard, CLI) and the raw SQL of the paid hot
// path, so both see the same connections and limits.

export type Db = PrismaClient;

interface DbHandles {
  pool: pg.Pool;
  prisma: PrismaClient;
}

const globalForDb = globalThis as typeof globalThis & { __wgsDb?: DbHandles };

function connect(): DbHandles {
  const url = getConfig().DATABASE_URL;
  if (!url) {
    throw new Error('DATABASE_URL is not set: start the product with `npm start`, which provides a database.');
  }
  const pool = new pg.Pool({ connectionString: url, max: 20, idleTimeoutMillis: 30_000 });
  // A dropped connection (database restart) must not crash the process; the next query reconnects.
  pool.on('error', () => {});
  const prisma = new PrismaClient({ adapter: new PrismaPg(pool) });
  return { pool, prisma };
}

function handles(): DbHandles {
  globalForDb.__wgsDb ??= connect();
  return globalForDb.__wgsDb;
}

export function getPrisma(): PrismaClient {
  return handles().prisma;
}

export function getPool(): pg.Pool {
  return handles().pool;
}

export async function disconnectDb(): Promise<void> {
  const current = globalForDb.__wgsDb;
  globalForDb.__wgsDb = undefined;
  if (!current) return;
  await current.prisma.$disconnect();
  await current.pool.end();
}
