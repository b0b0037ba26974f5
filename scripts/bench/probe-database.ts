// The throwaway database of the in-process probes: an embedded PostgreSQL, migrated and named
// in DATABASE_URL, with one package selling local text.generate (limits no probe reaches) and a
// key for it. The server modules are imported only once DATABASE_URL is set.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface ProbeDatabase {
  /** The key's secret and id. */
  key: string;
  keyId: string;
  /** The embedded server's postmaster, for PostgreSQL's CPU (proc-stats.ts' postgresPids). */
  postmasterPid: number;
  /** Closes the pools, stops the server and deletes its files. */
  close(): Promise<void>;
}

export async function startProbeDatabase(slug: string): Promise<ProbeDatabase> {
  const dataDir = mkdtempSync(join(tmpdir(), `wgs-${slug}-`));
  const { startEmbeddedPostgres } = await import('../../server/db/embedded-postgres');
  const { migrateDatabase } = await import('../../server/db/migrate');
  const database = await startEmbeddedPostgres({ dataDir });
  const stop = async () => {
    await database.stop();
    rmSync(dataDir, { recursive: true, force: true });
  };
  try {
    await migrateDatabase(database.url);
    process.env.DATABASE_URL = database.url;
    const { getPrisma, disconnectDb } = await import('../../server/db/client');
    const { applyPackages, parsePackagesFile } = await import('../../server/domain/packages/apply-packages');
    const { issueKey } = await import('../../server/domain/keys/issue-key');
    const { CLI_ACTOR } = await import('../../server/domain/actor');
    const { readPostmaster } = await import('../../server/db/postmaster');
    const operations = { 'text.generate': { engine: 'local', units: 1 } };
    const limits = { requests_per_minute: 1_000_000, concurrency: 1000 };
    const file = parsePackagesFile({ providers: {}, packages: [{ slug, name: slug, quota_units: 10_000_000, limits, operations }] });
    await applyPackages(getPrisma(), CLI_ACTOR, file);
    const issued = await issueKey(getPrisma(), CLI_ACTOR, { packageSlug: slug });
    return {
      key: issued.key,
      keyId: issued.id,
      postmasterPid: readPostmaster(join(dataDir, 'pg'))?.pid ?? 0,
      close: async () => {
        await disconnectDb();
        await stop();
      },
    };
  } catch (error) {
    await stop();
    throw error;
  }
}
