import { randomBytes } from 'node:crypto';
import pg from 'pg';

// Each integration test file gets a database of its own, cloned from one migrated template
// (tests/setup/global-database.ts makes it once per run): files run side by side, and none sees
// another's keys, holds, counts, sweeps or circuit state. Cloning takes a fraction of a second;
// migrating took seconds.

declare module 'vitest' {
  export interface ProvidedContext {
    testDatabases: TestDatabases;
  }
}

export interface TestDatabases {
  /** A connection to the test server that may create databases (its own database is never tested on). */
  serverUrl: string;
  /** The migrated database every test database is cloned from; nothing connects to it. */
  template: string;
  /** The first part of every database name of this run, so that a teardown finds them all. */
  prefix: string;
}

/** `serverUrl` pointed at another database of the same server. */
export function urlOfDatabase(serverUrl: string, name: string): string {
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

/** A new database named `<prefix>_<tag>_<pid>_<random>`, a copy of the migrated template. */
export async function cloneTemplate(databases: TestDatabases, tag: string): Promise<{ name: string; url: string }> {
  const name = `${databases.prefix}_${tag}_${process.pid}_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: databases.serverUrl });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE "${name}" TEMPLATE "${databases.template}"`);
  } finally {
    await admin.end();
  }
  return { name, url: urlOfDatabase(databases.serverUrl, name) };
}

// Kept on globalThis, not in this module: a worker runs file after file, and tests/setup/test-env.ts
// reloads the modules for each (this one included) after it has set the URL.
const FILE_DATABASE_URL = Symbol.for('wgs.test.file-database-url');
const slot = globalThis as { [FILE_DATABASE_URL]?: string };

/** Set by tests/setup/test-env.ts for each file, before the file is loaded. */
export function setTestDatabaseUrl(url: string): void {
  slot[FILE_DATABASE_URL] = url;
}

/**
 * This test file's own database: what DATABASE_URL holds when the file starts (a test that points
 * its process elsewhere, useDatabaseInThisProcess, comes back to this one).
 */
export function testDatabaseUrl(): string {
  const url = slot[FILE_DATABASE_URL];
  if (!url) throw new Error('no test database: tests/setup/test-env.ts did not run for this file');
  return url;
}
