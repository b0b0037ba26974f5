import { existsSync } from 'node:fs';
import { join } from 'node:path';
import lockfile from 'proper-lockfile';

// One process at a time decides what happens to a data dir's PostgreSQL: whether to start it,
// share it or stop it. Without it two CLI commands run at once on a stopped data dir both started
// a server (one failed), or one stopped the server the other had just found (outside audit).
// A holder that dies leaves a lock that goes stale (its mtime, refreshed every 5 s, no longer is)
// in 30 s: long enough that a holder whose timers stall a while (a loaded machine) keeps it.

const STALE_MS = 30_000;
/** How long a caller waits for another's start or stop (a first start initialises the database: seconds). */
const WAIT_MS = 120_000;

export async function withDataDirLock<T>(dataDir: string, work: () => Promise<T>): Promise<T> {
  // A data dir removed meanwhile (a test cleaning up, before its server's stop): nobody to take turns with.
  if (!existsSync(dataDir)) return work();
  const release = await lockfile
    .lock(dataDir, {
      lockfilePath: join(dataDir, 'pg-start.lock'),
      stale: STALE_MS,
      update: 5_000,
      retries: { retries: WAIT_MS / 100, factor: 1, minTimeout: 100, maxTimeout: 100 },
      // A lock found stale under a slow start is the start's to finish: nothing to undo.
      onCompromised: () => {},
    })
    .catch((error: unknown) => {
      if ((error as { code?: string }).code === 'ENOENT') return undefined; // removed as it was locked
      throw (error as { code?: string }).code === 'ELOCKED'
        ? new Error(`another process has been starting or stopping the embedded PostgreSQL of ${dataDir} for over ${WAIT_MS / 1000} s`)
        : error;
    });
  try {
    return await work();
  } finally {
    await release?.().catch(() => {});
  }
}
