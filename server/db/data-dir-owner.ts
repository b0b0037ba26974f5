import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

// Who owns the embedded PostgreSQL of a data dir: the process that started it (or adopted it as
// an orphan). Only the owner stops it. `pg-owner` beside it names the owner's pid, the moment the
// kernel started that process (a reused pid is not the owner) and whether it is the app
// (`npm start`) or a short-lived borrower (the CLI, a migration).

export type OwnerKind = 'app' | 'cli';

export interface DataDirOwner {
  pid: number;
  /** /proc/<pid>/stat's start time (clock ticks since boot); null where there is no /proc. */
  startedAt: string | null;
  kind: OwnerKind;
}

const ownerFile = (dataDir: string) => join(dataDir, 'pg-owner');

function processStartTime(pid: number): string | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name, which may hold spaces: the start time is field 22.
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19] ?? null;
  } catch {
    return null;
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Records this process as the owner of the data dir's PostgreSQL. */
export function claimDataDir(dataDir: string, kind: OwnerKind): void {
  const owner: DataDirOwner = { pid: process.pid, startedAt: processStartTime(process.pid), kind };
  writeFileSync(ownerFile(dataDir), `${JSON.stringify(owner)}\n`, { mode: 0o600 });
}

/** Gives ownership up (when this process stops the server); another owner's record stays. */
export function releaseDataDir(dataDir: string): void {
  if (liveOwner(dataDir)?.pid === process.pid) rmSync(ownerFile(dataDir), { force: true });
}

/** The owner of the data dir's PostgreSQL while that process still runs; undefined for none or a dead one. */
export function liveOwner(dataDir: string): DataDirOwner | undefined {
  if (!existsSync(ownerFile(dataDir))) return undefined;
  let owner: DataDirOwner;
  try {
    owner = JSON.parse(readFileSync(ownerFile(dataDir), 'utf8')) as DataDirOwner;
  } catch {
    return undefined;
  }
  if (!Number.isInteger(owner.pid) || owner.pid <= 0 || !alive(owner.pid)) return undefined;
  // A pid the kernel gave to another process since (after a crash, a reboot) is not the owner.
  const startedAt = processStartTime(owner.pid);
  if (owner.startedAt !== null && startedAt !== null && startedAt !== owner.startedAt) return undefined;
  return owner;
}

/** A second `npm start` on a data dir another live `npm start` owns. */
export class DataDirInUse extends Error {
  constructor(
    readonly dataDir: string,
    readonly owner: DataDirOwner,
  ) {
    super(
      `the data directory ${dataDir} is in use by another npm start (pid ${owner.pid}), which owns its PostgreSQL. ` +
        'Stop that one first, or give this one another WGS_DATA_DIR.',
    );
    this.name = 'DataDirInUse';
  }
}
