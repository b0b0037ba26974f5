import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

// Who owns the embedded PostgreSQL of a data dir: the process that started it (or adopted it as
// an orphan). Only the owner stops it. `pg-owner` beside it names the owner's pid, the moment the
// kernel started that process (a reused pid is not the owner) and whether it is the app
// (`npm start`) or a short-lived borrower (the CLI, a migration). The tools that share a server
// they did not start (the CLI, a migration, a worker) note themselves in `pg-borrowers/`, so that a
// CLI that started it hands it over to them when it is done instead of stopping it under them.

export type OwnerKind = 'app' | 'cli';

export interface DataDirOwner {
  pid: number;
  /** /proc/<pid>/stat's start time (clock ticks since boot); null where there is no /proc. */
  startedAt: string | null;
  kind: OwnerKind;
  /** Set when a CLI that started the server handed it over to a borrower: the borrower's record. */
  borrower?: string;
}

/** A process that shares the server, as `pg-borrowers/<name>` records it. */
export interface Borrower {
  name: string;
  pid: number;
  startedAt: string | null;
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

/** Records this process (or the borrower it hands the server over to) as the owner of the data dir's PostgreSQL. */
export function claimDataDir(dataDir: string, kind: OwnerKind): void {
  writeOwner(dataDir, { ...thisProcess(), kind });
}

/** Makes a borrower the owner: it stops the server when it is done (or hands it over in turn). */
export function handOver(dataDir: string, { name, pid, startedAt }: Borrower): void {
  writeOwner(dataDir, { pid, startedAt, kind: 'cli', borrower: name });
}

function writeOwner(dataDir: string, owner: DataDirOwner): void {
  writeFileSync(ownerFile(dataDir), `${JSON.stringify(owner)}\n`, { mode: 0o600 });
}

const thisProcess = () => ({ pid: process.pid, startedAt: processStartTime(process.pid) });

/** Whether the process a record names still runs (not a pid the kernel has since given to another). */
function stillRuns({ pid, startedAt }: Omit<DataDirOwner, 'kind'>): boolean {
  if (!Number.isInteger(pid) || pid <= 0 || !alive(pid)) return false;
  const now = processStartTime(pid);
  return startedAt === null || now === null || now === startedAt;
}

const borrowersDir = (dataDir: string) => join(dataDir, 'pg-borrowers');

/** Notes this process as a borrower of the data dir's PostgreSQL; the name to give back with `returnBorrowed`. */
export function noteBorrower(dataDir: string): string {
  mkdirSync(borrowersDir(dataDir), { recursive: true, mode: 0o700 });
  const name = `${process.pid}-${randomBytes(6).toString('hex')}.json`;
  writeFileSync(join(borrowersDir(dataDir), name), `${JSON.stringify(thisProcess())}\n`, { mode: 0o600 });
  return name;
}

export function returnBorrowed(dataDir: string, name: string): void {
  rmSync(join(borrowersDir(dataDir), name), { force: true });
}

/** The borrowers still running, other than this process (the records of those gone are removed). */
export function otherLiveBorrowers(dataDir: string): Borrower[] {
  if (!existsSync(borrowersDir(dataDir))) return [];
  const live: Borrower[] = [];
  for (const name of readdirSync(borrowersDir(dataDir))) {
    let borrower: Borrower | undefined;
    try {
      borrower = { ...(JSON.parse(readFileSync(join(borrowersDir(dataDir), name), 'utf8')) as Omit<Borrower, 'name'>), name };
    } catch {
      borrower = undefined;
    }
    if (!borrower || !stillRuns(borrower)) returnBorrowed(dataDir, name);
    else if (borrower.pid !== process.pid) live.push(borrower);
  }
  return live;
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
  // A pid the kernel gave to another process since (after a crash, a reboot) is not the owner.
  return stillRuns(owner) ? owner : undefined;
}

/** A second `npm start` on a data dir another live `npm start` owns. */
export class DataDirInUse extends Error {
  constructor(
    readonly dataDir: string,
    readonly owner: DataDirOwner,
  ) {
    super(
      owner.kind === 'app'
        ? `the data directory ${dataDir} is in use by another npm start (pid ${owner.pid}), which owns its PostgreSQL. ` +
            'Stop that one first, or give this one another WGS_DATA_DIR.'
        : `the embedded PostgreSQL of ${dataDir} is still used by a command (pid ${owner.pid}) that started it. ` +
            'Let it finish or stop it first, or give this one another WGS_DATA_DIR.',
    );
    this.name = 'DataDirInUse';
  }
}
