import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { testDatabaseUrl } from '../setup/test-database';
import { migrateDatabase, readMigrations, type MigrationFile } from '@/server/db/migrate';
import { REPO_ROOT, waitFor } from './support/processes';

// The runner must leave exactly the history `prisma migrate deploy` would, so either tool can
// take over. Every case runs on its own scratch database of the integration server.

const serverUrl = testDatabaseUrl();
const MIGRATIONS_DIR = join(REPO_ROOT, 'prisma', 'migrations');
const LOCK_ID = 72707369;
const created: string[] = [];

async function withAdmin<T>(work: (admin: pg.Client) => Promise<T>): Promise<T> {
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  try {
    return await work(admin);
  } finally {
    await admin.end();
  }
}

async function scratchDatabase(): Promise<string> {
  const name = `wgs_migrate_${process.pid}_${created.length}_${Date.now()}`;
  await withAdmin((admin) => admin.query(`CREATE DATABASE "${name}"`));
  created.push(name);
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

async function query<T extends pg.QueryResultRow>(url: string, sql: string, params: unknown[] = []): Promise<T[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<T>(sql, params)).rows;
  } finally {
    await client.end();
  }
}

const migration = (name: string, sql: string): MigrationFile => ({
  name,
  sql,
  checksum: createHash('sha256').update(sql).digest('hex'),
});

afterAll(async () => {
  await withAdmin(async (admin) => {
    for (const name of created) await admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
  });
});

interface HistoryRow {
  id: string;
  checksum: string;
  finished_at: Date | null;
  migration_name: string;
  logs: string | null;
  rolled_back_at: Date | null;
  started_at: Date;
  applied_steps_count: number;
}

const history = (url: string) => query<HistoryRow>(url, 'SELECT * FROM "_prisma_migrations" ORDER BY started_at, migration_name');

describe('migrateDatabase', () => {
  it('applies every migration of prisma/migrations to an empty database and records them like prisma migrate deploy', async () => {
    const url = await scratchDatabase();
    const files = readMigrations(MIGRATIONS_DIR);
    expect(files.length).toBeGreaterThan(0);
    const lines: string[] = [];
    const applied = await migrateDatabase(url, { migrations: files, log: (line) => lines.push(line) });
    expect(applied).toEqual(files.map((f) => f.name));

    const rows = await history(url);
    expect(rows.map((r) => r.migration_name)).toEqual(files.map((f) => f.name));
    for (const row of rows) {
      const sql = readFileSync(join(MIGRATIONS_DIR, row.migration_name, 'migration.sql'));
      expect(row.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
      expect(row.checksum).toBe(createHash('sha256').update(sql).digest('hex'));
      expect(row.started_at).toBeInstanceOf(Date);
      expect(row.finished_at).toBeInstanceOf(Date);
      expect(row.finished_at!.getTime()).toBeGreaterThanOrEqual(row.started_at.getTime());
      expect(row.applied_steps_count).toBe(1);
      expect(row.logs).toBeNull();
      expect(row.rolled_back_at).toBeNull();
    }

    // Prisma's own table definition, column for column.
    const columns = await query<{
      column_name: string;
      data_type: string;
      character_maximum_length: number | null;
      is_nullable: string;
      column_default: string | null;
    }>(
      url,
      `SELECT column_name, data_type, character_maximum_length, is_nullable, column_default
         FROM information_schema.columns WHERE table_name = '_prisma_migrations' ORDER BY ordinal_position`,
    );
    expect(columns).toEqual([
      { column_name: 'id', data_type: 'character varying', character_maximum_length: 36, is_nullable: 'NO', column_default: null },
      { column_name: 'checksum', data_type: 'character varying', character_maximum_length: 64, is_nullable: 'NO', column_default: null },
      {
        column_name: 'finished_at',
        data_type: 'timestamp with time zone',
        character_maximum_length: null,
        is_nullable: 'YES',
        column_default: null,
      },
      {
        column_name: 'migration_name',
        data_type: 'character varying',
        character_maximum_length: 255,
        is_nullable: 'NO',
        column_default: null,
      },
      { column_name: 'logs', data_type: 'text', character_maximum_length: null, is_nullable: 'YES', column_default: null },
      {
        column_name: 'rolled_back_at',
        data_type: 'timestamp with time zone',
        character_maximum_length: null,
        is_nullable: 'YES',
        column_default: null,
      },
      {
        column_name: 'started_at',
        data_type: 'timestamp with time zone',
        character_maximum_length: null,
        is_nullable: 'NO',
        column_default: 'now()',
      },
      { column_name: 'applied_steps_count', data_type: 'integer', character_maximum_length: null, is_nullable: 'NO', column_default: '0' },
    ]);

    // The schema really is there.
    const tables = await query<{ table_name: string }>(
      url,
      `SELECT table_name FROM information_schema.tables WHERE table_schema = 'public'`,
    );
    expect(tables.map((t) => t.table_name)).toEqual(expect.arrayContaining(['api_keys', 'packages', 'audit_log', '_prisma_migrations']));

    // A second run applies nothing and leaves the history as it was.
    const again = await migrateDatabase(url, { migrations: files, log: (line) => lines.push(line) });
    expect(again).toEqual([]);
    expect(await history(url)).toEqual(rows);
    expect(lines.filter((line) => line.includes('warning'))).toEqual([]);
  });

  it('applies the default folder (process.cwd()/prisma/migrations) when given no list', async () => {
    const url = await scratchDatabase();
    expect(process.cwd()).toBe(REPO_ROOT);
    expect(await migrateDatabase(url)).toEqual(readMigrations(MIGRATIONS_DIR).map((f) => f.name));
    expect(await migrateDatabase(url)).toEqual([]);
  });

  it('stops at a failing migration, records its logs, rolls its statements back and blocks later runs until resolved', async () => {
    const url = await scratchDatabase();
    const first = migration('20260101000000_first', 'CREATE TABLE "first_table" ("id" INTEGER PRIMARY KEY);');
    const broken = migration(
      '20260102000000_broken',
      'CREATE TABLE "half_done" ("id" INTEGER);\nINSERT INTO "first_table" VALUES (1);\nALTER TABLE "no_such_table" ADD COLUMN "x" TEXT;',
    );
    const later = migration('20260103000000_later', 'CREATE TABLE "later_table" ("id" INTEGER);');

    await expect(migrateDatabase(url, { migrations: [first, broken, later] })).rejects.toThrow(/20260102000000_broken.*no_such_table/s);
    const rows = await history(url);
    expect(rows.map((r) => r.migration_name)).toEqual([first.name, broken.name]);
    const failed = rows[1]!;
    expect(failed.finished_at).toBeNull();
    expect(failed.rolled_back_at).toBeNull();
    expect(failed.applied_steps_count).toBe(0);
    expect(failed.checksum).toBe(broken.checksum);
    expect(failed.logs).toMatch(/no_such_table/);
    // One implicit transaction per file: nothing of the broken file stayed.
    const leftovers = await query<{ table_name: string }>(
      url,
      `SELECT table_name FROM information_schema.tables WHERE table_name IN ('half_done', 'later_table')`,
    );
    expect(leftovers).toEqual([]);
    expect(await query(url, 'SELECT * FROM "first_table"')).toEqual([]);

    // Blocked, with a message that says which migration and what to do, even once it is fixed.
    const fixed = migration(broken.name, 'CREATE TABLE "half_done" ("id" INTEGER);');
    await expect(migrateDatabase(url, { migrations: [first, fixed, later] })).rejects.toThrow(
      /20260102000000_broken failed.*migrate resolve --rolled-back/s,
    );
    expect(await history(url)).toHaveLength(2);

    // `prisma migrate resolve --rolled-back NAME` sets rolled_back_at; then it runs again.
    await query(url, `UPDATE "_prisma_migrations" SET rolled_back_at = now() WHERE migration_name = $1`, [broken.name]);
    expect(await migrateDatabase(url, { migrations: [first, fixed, later] })).toEqual([fixed.name, later.name]);
    const after = await history(url);
    expect(after.map((r) => [r.migration_name, r.finished_at !== null, r.rolled_back_at !== null])).toEqual([
      [first.name, true, false],
      [broken.name, false, true],
      [fixed.name, true, false],
      [later.name, true, false],
    ]);
  });

  it('warns about an applied migration whose file was edited, and applies nothing for it', async () => {
    const url = await scratchDatabase();
    const original = migration('20260101000000_first', 'CREATE TABLE "first_table" ("id" INTEGER);');
    await migrateDatabase(url, { migrations: [original] });
    const edited = migration(original.name, 'CREATE TABLE "first_table" ("id" INTEGER, "extra" TEXT);');
    const lines: string[] = [];
    expect(await migrateDatabase(url, { migrations: [edited], log: (line) => lines.push(line) })).toEqual([]);
    expect(lines).toEqual([expect.stringMatching(/warning.*20260101000000_first.*edited/)]);
    const rows = await history(url);
    expect(rows).toHaveLength(1);
    expect(rows[0]!.checksum).toBe(original.checksum);
  });

  it('waits for the advisory lock prisma migrate uses', async () => {
    const url = await scratchDatabase();
    const holder = new pg.Client({ connectionString: url });
    await holder.connect();
    try {
      await holder.query('SELECT pg_advisory_lock($1)', [LOCK_ID]);
      const run = migrateDatabase(url, { migrations: [migration('20260101000000_first', 'CREATE TABLE "t" ("id" INTEGER);')] });
      let settled = false;
      void run.then(
        () => (settled = true),
        () => (settled = true),
      );
      // The runner's session shows up waiting for exactly that lock.
      await waitFor(
        'the runner to wait for the advisory lock',
        async () => {
          const { rows } = await holder.query(
            `SELECT 1 FROM pg_locks WHERE locktype = 'advisory' AND NOT granted AND objid = $1 AND database = (SELECT oid FROM pg_database WHERE datname = current_database())`,
            [LOCK_ID],
          );
          return rows.length > 0 ? true : undefined;
        },
        20_000,
      );
      expect(settled).toBe(false);
      const { rows } = await holder.query(`SELECT to_regclass('"_prisma_migrations"') AS found`);
      expect(rows[0].found).toBeNull(); // nothing happened before the lock was granted
      await holder.query('SELECT pg_advisory_unlock($1)', [LOCK_ID]);
      expect(await run).toEqual(['20260101000000_first']);
    } finally {
      await holder.end();
    }
  });

  it('never applies a migration twice when two runners start at once', async () => {
    const url = await scratchDatabase();
    // Slow enough that two unlocked runners would both see it as pending.
    const slow = migration(
      '20260101000000_slow',
      'SELECT pg_sleep(0.3);\nCREATE TABLE "once" ("id" INTEGER);\nINSERT INTO "once" VALUES (1);',
    );
    const next = migration('20260102000000_next', 'INSERT INTO "once" VALUES (2);');
    const results = await Promise.all(Array.from({ length: 4 }, () => migrateDatabase(url, { migrations: [slow, next] })));
    expect(results.flat().sort()).toEqual([slow.name, next.name]);
    expect((await history(url)).map((r) => r.migration_name)).toEqual([slow.name, next.name]);
    expect(await query(url, 'SELECT id FROM "once" ORDER BY id')).toEqual([{ id: 1 }, { id: 2 }]);
  });

  it('reports a database it cannot reach without leaving anything behind', async () => {
    const url = new URL(serverUrl);
    url.pathname = '/wgs_migrate_does_not_exist';
    await expect(migrateDatabase(url.toString(), { migrations: [] })).rejects.toThrow(/does not exist/);
  });
});
