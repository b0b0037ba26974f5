import { existsSync, readFileSync } from 'node:fs';
import type { SqlDb } from '../../db/client';
import type { PrismaClient } from '../../db/generated/client';
import { SYSTEM_ACTOR } from '../actor';
import { applyPackages, parsePackagesFile } from './apply-packages';
import sql from 'sql-template-tag';
import { prepared } from '../../db/named-statement';

const SEED_LOCK_ID = 72707370; // instances starting together seed the example packages once

/**
 * Applies the packages file to an empty database (a fresh install); returns the slugs applied.
 * `sqlDb` gives the one connection that holds the advisory lock while `db` applies the file.
 */
export async function seedExamplePackages(db: PrismaClient, sqlDb: SqlDb, file: string): Promise<string[]> {
  if (!existsSync(file)) return [];
  const lock = await sqlDb.pool.connect();
  try {
    await lock.query(prepared('wgs-seed-lock', sql`SELECT pg_advisory_lock(${SEED_LOCK_ID})`));
    if ((await db.package.count()) > 0) return [];
    const result = await applyPackages(db, SYSTEM_ACTOR, parsePackagesFile(JSON.parse(readFileSync(file, 'utf8'))));
    return result.packages.map((p) => p.slug);
  } finally {
    await lock.query(prepared('wgs-seed-unlock', sql`SELECT pg_advisory_unlock(${SEED_LOCK_ID})`)).catch(() => {});
    lock.release();
  }
}
