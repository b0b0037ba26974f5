import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { killAllProcesses } from './processes';

// However the run ends (its end, a failure, Ctrl-C), nothing it started is left running: the
// product's processes are killed, the fakes closed, PostgreSQL stopped and the data dir removed.
// Steps run once each, newest first; a process exit that skips them still kills the processes and
// the postmaster.

const steps: (() => Promise<void>)[] = [];
let dataDir: string | undefined;
let done = false;

export function onCleanup(step: () => Promise<void>): void {
  steps.push(step);
}

/** The run's temporary data dir (PostgreSQL's data, the object store), removed at the end. */
export function removeAtCleanup(dir: string): void {
  dataDir = dir;
}

export async function cleanUp(): Promise<void> {
  if (done) return;
  done = true;
  killAllProcesses();
  for (const step of steps.reverse()) await step().catch(() => undefined);
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
}

/** The last resort when the process exits without cleanUp (it cannot wait): SIGKILL and SIGINT. */
function exitNow(): void {
  if (done) return;
  killAllProcesses();
  try {
    const pid = Number(readFileSync(join(dataDir ?? '', 'pg', 'pg', 'postmaster.pid'), 'utf8').split('\n')[0]);
    if (pid > 0) process.kill(pid, 'SIGINT');
  } catch {
    // no PostgreSQL running
  }
}

export function cleanUpOnSignals(log: (line: string) => void): void {
  process.once('exit', exitNow);
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
    process.once(signal, () => {
      log(`${signal}: stopping everything the run started`);
      void cleanUp().finally(() => process.exit(130));
    });
  }
}
