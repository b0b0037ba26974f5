import { existsSync, readFileSync } from 'node:fs';
import type { SqlDb } from '../../db/client';
import type { PrismaClient } from '../../db/generated/client';
import { SYSTEM_ACTOR } from '../actor';
import { validationIssuesOf } from '../errors';
import { applyPackages, parsePackagesFile } from './apply-packages';
import { parsePackagesText } from './packages-file-text';
import sql from 'sql-template-tag';
import { prepared } from '../../db/named-statement';

const SEED_LOCK_ID = 72707370; // instances starting together seed the example packages once

/** The packages file a fresh install applies when SEED_PACKAGES_FILE is unset (absent: none). */
export const DEFAULT_SEED_FILE = 'packages.example.json';

/**
 * Applies the packages file to an empty database (a fresh install); returns the slugs applied.
 * `sqlDb` gives the one connection that holds the advisory lock while `db` applies the file. A
 * file that was named (`file`) must exist and be valid, or the start stops naming it; the default
 * one may be absent.
 */
export async function seedExamplePackages(db: PrismaClient, sqlDb: SqlDb, file: string | undefined): Promise<string[]> {
  const path = file ?? DEFAULT_SEED_FILE;
  if (!existsSync(path)) {
    if (file !== undefined) throw new Error(`SEED_PACKAGES_FILE: no file at ${file}`);
    return [];
  }
  const packages = await readSeedFile(path); // checked at every start, not only the first
  const lock = await sqlDb.pool.connect();
  try {
    await lock.query(prepared('wgs-seed-lock', sql`SELECT pg_advisory_lock(${SEED_LOCK_ID})`));
    if ((await db.package.count()) > 0) return [];
    const result = await applyPackages(db, SYSTEM_ACTOR, packages);
    return result.packages.map((p) => p.slug);
  } finally {
    await lock.query(prepared('wgs-seed-unlock', sql`SELECT pg_advisory_unlock(${SEED_LOCK_ID})`)).catch(() => {});
    lock.release();
  }
}

/** The file, parsed; what is wrong with it said with its name and each problem, as the CLI's `packages apply` says it. */
async function readSeedFile(path: string) {
  try {
    return parsePackagesFile(await parsePackagesText(readFileSync(path, 'utf8'), path)); // JSON, or YAML by its name
  } catch (error) {
    const issues = validationIssuesOf(error);
    const reason = [error instanceof Error ? error.message : String(error), ...issues.map((issue) => issue.message)].join('; ');
    throw new Error(`SEED_PACKAGES_FILE ${path}: ${reason}`);
  }
}
