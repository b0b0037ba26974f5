import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import type { TestProject } from 'vitest/node';
import { startEmbeddedPostgres } from '../../server/db/embedded-postgres';
import { migrateDatabase } from '../../server/db/migrate';
import { urlOfDatabase, type TestDatabases } from './test-database';
import { recordTeardownError } from './unhandled-errors-reporter';

// Integration tests run against a real PostgreSQL: TEST_DATABASE_URL's server when set (never a
// non-local one), otherwise a fresh embedded server in a temp dir. One database is migrated
// there as the template; each test file gets a clone of it (tests/setup/test-env.ts).

async function onServer(serverUrl: string, statements: string[]): Promise<void> {
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  try {
    for (const statement of statements) await admin.query(statement);
  } finally {
    await admin.end();
  }
}

/** The server to test on, and how to be rid of it (or of this run's databases on it) afterwards. */
async function testServer(prefix: string): Promise<{ serverUrl: string; stop(): Promise<void> }> {
  const external = process.env.TEST_DATABASE_URL;
  if (external) {
    const server = new URL(external);
    if (!['localhost', '127.0.0.1', '::1', '[::1]'].includes(server.hostname)) {
      throw new Error(`Refusing to run tests against a non-local database (${server.hostname}).`);
    }
    return {
      serverUrl: external,
      async stop() {
        const admin = new pg.Client({ connectionString: external });
        await admin.connect();
        try {
          const { rows } = await admin.query<{ datname: string }>('SELECT datname FROM pg_database WHERE starts_with(datname, $1)', [
            `${prefix}_`,
          ]);
          for (const { datname } of rows) await admin.query(`DROP DATABASE IF EXISTS "${datname}" WITH (FORCE)`);
        } finally {
          await admin.end();
        }
      },
    };
  }
  const dataDir = mkdtempSync(join(tmpdir(), 'wgs-test-'));
  const database = await startEmbeddedPostgres({ dataDir });
  // A throwaway server: no flush to disk on each commit or database clone. A crash of PostgreSQL
  // itself still loses nothing (the operating system keeps what was written); only a crash of
  // the machine would, and the server is gone with the run anyway.
  await onServer(database.url, ['ALTER SYSTEM SET fsync = off', 'ALTER SYSTEM SET full_page_writes = off', 'SELECT pg_reload_conf()']);
  return {
    serverUrl: database.url,
    async stop() {
      await database.stop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

export default async function setup(project: TestProject) {
  const prefix = `wgs_t${process.pid}_${Date.now().toString(36)}`;
  const server = await testServer(prefix);
  const template = `${prefix}_template`;
  await onServer(server.serverUrl, [`CREATE DATABASE "${template}"`]);
  await migrateDatabase(urlOfDatabase(server.serverUrl, template));
  const databases: TestDatabases = { serverUrl: server.serverUrl, template, prefix };
  project.provide('testDatabases', databases);
  return async () => {
    try {
      await server.stop();
    } catch (error) {
      recordTeardownError('stopping the test PostgreSQL', error);
      throw error;
    }
  };
}
