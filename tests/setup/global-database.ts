import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import type { TestProject } from 'vitest/node';
import { startEmbeddedPostgres } from '../../server/db/embedded-postgres';
import { migrateDatabase } from '../../server/db/migrate';

declare module 'vitest' {
  export interface ProvidedContext {
    databaseUrl: string;
  }
}

// Integration tests run against a real PostgreSQL: a throwaway database on TEST_DATABASE_URL's
// server when set (never a non-local one), otherwise a fresh embedded server in a temp dir.
export default async function setup(project: TestProject) {
  const external = process.env.TEST_DATABASE_URL;
  if (external) {
    const server = new URL(external);
    if (!['localhost', '127.0.0.1', '::1', '[::1]'].includes(server.hostname)) {
      throw new Error(`Refusing to run tests against a non-local database (${server.hostname}).`);
    }
    const name = `wgs_test_${process.pid}_${Date.now()}`;
    const admin = new pg.Client({ connectionString: external });
    await admin.connect();
    await admin.query(`CREATE DATABASE "${name}"`);
    await admin.end();
    server.pathname = `/${name}`;
    await migrateDatabase(server.toString());
    project.provide('databaseUrl', server.toString());
    return async () => {
      const cleanup = new pg.Client({ connectionString: external });
      await cleanup.connect();
      await cleanup.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
      await cleanup.end();
    };
  }

  const dataDir = mkdtempSync(join(tmpdir(), 'wgs-test-'));
  const database = await startEmbeddedPostgres({ dataDir });
  await migrateDatabase(database.url);
  project.provide('databaseUrl', database.url);
  return async () => {
    await database.stop();
    rmSync(dataDir, { recursive: true, force: true });
  };
}
