import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testDatabaseUrl } from '../setup/test-database';
import { migrateDatabase, readMigrations } from '@/server/db/migrate';
import { REPO_ROOT } from './support/processes';
import { diffShapes, shapeFromDatabase, shapeFromSchema, type SchemaShape } from './support/schema-shape';

// schema.prisma and prisma/migrations must describe the same database. Prisma's own
// `migrate diff` cannot run offline, so the test compares the DMMF of schema.prisma (Prisma's
// WASM parser) with the catalogs of a database built from the migrations (the integration
// database, which global setup migrated; only read here).

const schemaText = readFileSync(join(REPO_ROOT, 'prisma', 'schema.prisma'), 'utf8');
const databaseUrl = testDatabaseUrl();

let client: pg.Client;
let fromDatabase: SchemaShape;
let fromSchema: SchemaShape;

beforeAll(async () => {
  client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  await client.query('SET SESSION CHARACTERISTICS AS TRANSACTION READ ONLY');
  fromDatabase = await shapeFromDatabase(client);
  fromSchema = shapeFromSchema(schemaText);
});

afterAll(async () => {
  await client?.end();
});

describe('schema.prisma and the migrations', () => {
  it('describe the same tables, columns, types, nullability and defaults', () => {
    expect(diffShapes(fromSchema, fromDatabase)).toEqual([]);
    expect(fromDatabase.tables).toEqual(fromSchema.tables);
  });

  it('describe the same enums with the same labels in the same order', () => {
    expect(fromDatabase.enums).toEqual(fromSchema.enums);
    expect(Object.keys(fromSchema.enums).length).toBeGreaterThan(0);
  });

  it('map the documented types (spot checks of the comparison itself)', () => {
    const keys = fromSchema.tables.api_keys!;
    expect(keys.columns.id).toMatchObject({ type: 'uuid', nullable: false, default: null });
    expect(keys.columns.label).toMatchObject({ type: 'text', nullable: true });
    expect(keys.columns.status).toMatchObject({ type: 'USER-DEFINED', udt: 'KeyStatus', default: 'active' });
    expect(keys.columns.created_at).toMatchObject({ type: 'timestamp with time zone', precision: 3, default: 'now' });
    expect(keys.foreignKeys).toEqual([
      'api_keys_package_version_id_fkey(package_version_id) -> package_versions(id) on delete Restrict on update Cascade',
    ]);
    expect(fromSchema.tables.audit_log!.columns.id).toMatchObject({ type: 'bigint', default: 'autoincrement' });
    expect(fromSchema.tables.package_versions!.columns.operations).toMatchObject({ type: 'jsonb' });
    expect(fromSchema.tables.rate_windows!.columns.key).toMatchObject({ type: 'character varying', length: 255 });
    expect(fromSchema.tables.idempotency_records!.unique).toEqual([
      'idempotency_records_api_key_id_method_path_key_key(api_key_id,method,path,key)',
    ]);
  });
});

// The comparison must be able to fail: each edit below is a drift someone could commit.
describe('the drift check notices', () => {
  const edit = (from: RegExp, to: string) => {
    const edited = schemaText.replace(from, to);
    expect(edited, `pattern ${from} must match schema.prisma`).not.toBe(schemaText);
    return diffShapes(shapeFromSchema(edited), fromDatabase);
  };

  it('a field added to schema.prisma without a migration', () => {
    expect(edit(/(model Operator \{\n)/, '$1  nickname String?\n')).toEqual(['tables.operators.columns.nickname']);
  });

  it('a column a migration added that schema.prisma lacks', () => {
    expect(edit(/\n\s*name\s+String\?\n/, '\n')).toEqual(['tables.operators.columns.name']);
  });

  it('a changed type, precision, length, nullability or default', () => {
    expect(
      edit(/lastLoginAt\s+DateTime\?(\s+@map\("last_login_at"\)) @db\.Timestamptz\(3\)/, 'lastLoginAt DateTime?$1 @db.Timestamptz(6)'),
    ).toEqual(['tables.operators.columns.last_login_at']);
    expect(edit(/key\s+String\s+@id @db\.VarChar\(255\)/, 'key String @id @db.VarChar(128)')).toEqual(['tables.rate_windows.columns.key']);
    expect(edit(/label\s+String\?/, 'label String')).toEqual(['tables.api_keys.columns.label']);
    expect(edit(/inFlight(\s+)Int(\s+)@default\(0\)/, 'inFlight$1Int$2@default(1)')).toEqual(['tables.api_keys.columns.in_flight']);
    expect(edit(/remainingUnits(\s+)Int /, 'remainingUnits$1BigInt ')).toEqual(['tables.api_keys.columns.remaining_units']);
  });

  it('a missing or extra index, unique constraint, enum label or relation', () => {
    expect(edit(/\n\s*@@index\(\[createdAt\]\)\n\s*@@map\("api_keys"\)/, '\n  @@map("api_keys")')).toEqual([
      'tables.api_keys.indexes.api_keys_created_at_idx(created_at)',
    ]);
    expect(edit(/email(\s+)String(\s+)@unique/, 'email$1String$2')).toEqual(['tables.operators.unique.operators_email_key(email)']);
    expect(edit(/enum KeyStatus \{\n\s+active\n\s+revoked\n/, 'enum KeyStatus {\n  active\n  revoked\n  paused\n')).toEqual([
      'enums.KeyStatus',
    ]);
    expect(
      edit(
        /apiKey(\s+)ApiKey(\s+)@relation\(fields: \[apiKeyId\], references: \[id\]\)\n\n {2}@@index\(\[status, leaseUntil\]\)/,
        'apiKey$1ApiKey$2@relation(fields: [apiKeyId], references: [id], onDelete: Cascade)\n\n  @@index([status, leaseUntil])',
      ),
    ).toEqual([
      'tables.unit_holds.foreignKeys.unit_holds_api_key_id_fkey(api_key_id) -> api_keys(id) on delete Cascade on update Cascade',
      'tables.unit_holds.foreignKeys.unit_holds_api_key_id_fkey(api_key_id) -> api_keys(id) on delete Restrict on update Cascade',
    ]);
  });

  it('a migration that changes the database without schema.prisma (scratch database)', async () => {
    const name = `wgs_drift_${process.pid}_${Date.now()}`;
    const admin = new pg.Client({ connectionString: databaseUrl });
    await admin.connect();
    await admin.query(`CREATE DATABASE "${name}"`);
    const url = new URL(databaseUrl);
    url.pathname = `/${name}`;
    const scratch = new pg.Client({ connectionString: url.toString() });
    try {
      const extra = 'ALTER TABLE "api_keys" ADD COLUMN "note" TEXT; CREATE INDEX "jobs_engine_idx" ON "jobs"("engine");';
      await migrateDatabase(url.toString(), {
        migrations: [
          ...readMigrations(join(REPO_ROOT, 'prisma', 'migrations')),
          { name: '99999999999999_extra', sql: extra, checksum: 'x'.repeat(64) },
        ],
      });
      await scratch.connect();
      expect(diffShapes(fromSchema, await shapeFromDatabase(scratch))).toEqual([
        'tables.api_keys.columns.note',
        'tables.jobs.indexes.jobs_engine_idx(engine)',
      ]);
    } finally {
      await scratch.end().catch(() => {});
      await admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
      await admin.end();
    }
  });
});
