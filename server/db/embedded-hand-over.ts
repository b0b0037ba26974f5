import { handOver, liveOwner, otherLiveBorrowers, releaseDataDir, returnBorrowed } from './data-dir-owner';
import { withDataDirLock } from './data-dir-lock';
import { isPostmasterOf, readPostmaster, stopPostmaster } from './postmaster';

// A CLI command done with the embedded PostgreSQL it started hands it over to a command still
// sharing it (a borrower, noted in pg-borrowers/), which stops it when done, or hands it on in turn.

/**
 * When a CLI that started the server is done: the server goes to a tool still sharing it, which
 * stops it in turn; true when it did (and so is not to be stopped). Called with the data dir locked.
 */
export function handedOverToBorrower(dataDir: string): boolean {
  const [next] = otherLiveBorrowers(dataDir);
  if (!next) return false;
  handOver(dataDir, next);
  return true;
}

/** A CLI done with a server it owns but did not start (handed over, or an orphan it took): on to a borrower, or stopped. */
export async function stopUnlessHandedOver(dataDir: string, pgDir: string): Promise<void> {
  if (handedOverToBorrower(dataDir)) return;
  const running = readPostmaster(pgDir);
  if (running && isPostmasterOf(running.pid, pgDir)) await stopPostmaster(running.pid);
  releaseDataDir(dataDir);
}

/**
 * What a borrower does when done: gives its note back and, when the server was handed over to it
 * meanwhile, hands it on or stops it.
 */
export async function giveBack(dataDir: string, pgDir: string, name: string): Promise<void> {
  await withDataDirLock(dataDir, async () => {
    returnBorrowed(dataDir, name);
    if (liveOwner(dataDir)?.borrower === name) await stopUnlessHandedOver(dataDir, pgDir);
  });
}
