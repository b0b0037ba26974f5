import { existsSync, readFileSync, readlinkSync, realpathSync, rmSync } from 'node:fs';
import { join } from 'node:path';

// The PostgreSQL server process of a data directory, as the operating system shows it: whether
// the pid in postmaster.pid is a live postmaster of that directory, and stopping it by signal.
// The embedded database (embedded-postgres.ts) uses it to find, adopt and stop a server.

export interface RunningPostmaster {
  pid: number;
  port: number;
}

/** Alive and not a zombie (an exited child nobody reaped yet no longer runs). */
export function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (error) {
    // EPERM: it exists but belongs to another user (the postgres user when we are not root).
    if ((error as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return existsSync('/proc/self') ? false : true; // no /proc (macOS): kill(0) is all we know
  }
}

/**
 * True when `pid` is a postmaster serving `pgDir`. After a reboot or a container restart the
 * pid in a stale postmaster.pid often belongs to some unrelated process now; a postmaster's
 * working directory is its data directory, which tells the two apart.
 */
export function isPostmasterOf(pid: number, pgDir: string): boolean {
  if (!isRunning(pid)) return false;
  if (!existsSync('/proc/self/cwd')) return true;
  try {
    return readlinkSync(`/proc/${pid}/cwd`) === realpathSync(pgDir);
  } catch (error) {
    // Not allowed to look (another user's process, not root): trust the live pid.
    return (error as NodeJS.ErrnoException).code === 'EACCES' || (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

export function readPostmaster(pgDir: string): RunningPostmaster | undefined {
  const pidFile = join(pgDir, 'postmaster.pid');
  if (!existsSync(pidFile)) return undefined;
  const lines = readFileSync(pidFile, 'utf8').split('\n');
  const pid = Number(lines[0]);
  const port = Number(lines[3]);
  if (!Number.isInteger(pid) || pid <= 0 || !Number.isInteger(port)) return undefined;
  if (isPostmasterOf(pid, pgDir)) return { pid, port };
  // Stale file of a dead server. PostgreSQL replaces it itself unless its pid now belongs to
  // another live process, in which case it refuses to start: remove it for it.
  if (isRunning(pid)) rmSync(pidFile, { force: true });
  return undefined;
}

export async function waitForExit(pid: number, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (!isRunning(pid)) return;
    await new Promise((r) => setTimeout(r, 50));
  }
}

export async function stopPostmaster(pid: number): Promise<void> {
  try {
    process.kill(pid, 'SIGINT'); // "fast" shutdown: ends sessions, writes a checkpoint
  } catch {
    return;
  }
  await waitForExit(pid, 15_000);
}
