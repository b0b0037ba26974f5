import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { freePort, freePorts } from '../../../server/db/free-port';
import { isRunning } from '../../../server/db/embedded-postgres';
export { isRunning };
export { freePort, freePorts };

// Helpers for tests that run the real product as child processes: the repo root, a CLI
// runner, a registry of everything spawned (so afterAll can kill it even after a failure),
// and a way to tell whether the embedded PostgreSQL of a data dir is still running.

export const REPO_ROOT = resolve(import.meta.dirname, '../../..');

/** The environment of a child: this process's, minus what would point it at the test database. */
export function childEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, NEXT_TELEMETRY_DISABLED: '1', ...extra };
  delete env.DATABASE_URL;
  delete env.TEST_DATABASE_URL;
  delete env.NODE_OPTIONS; // vitest's own loader hooks are not for the child
  delete env.VITEST;
  delete env.VITEST_WORKER_ID;
  delete env.VITEST_POOL_ID;
  // What tests/setup/test-env.ts set for in-process tests: the child runs as an operator would.
  delete env.SIGNING_SECRET;
  delete env.PUBLIC_BASE_URL;
  delete env.RUN_WORKER;
  Object.assign(env, extra);
  (env as Record<string, string | undefined>).NODE_ENV = 'production';
  return env;
}

const spawned = new Set<ChildProcess>();

export function track(child: ChildProcess): ChildProcess {
  spawned.add(child);
  child.once('exit', () => spawned.delete(child));
  return child;
}

/** SIGKILLs every child still running (afterAll, whatever happened before). */
export function killAllSpawned(): void {
  for (const child of spawned) {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  }
  spawned.clear();
}

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** The operator CLI from the build that ships, `node dist/cli.js` (tests/setup/global-server-bundle.ts). */
export function runCli(
  args: string[],
  dataDir: string,
  timeoutMs = 90_000,
  extraEnv: Record<string, string> = {},
  stdin?: string,
): Promise<CliResult> {
  return new Promise((resolveRun, reject) => {
    const child = track(
      spawn(process.execPath, ['dist/cli.js', ...args], {
        cwd: REPO_ROOT,
        env: childEnv({ WGS_DATA_DIR: dataDir, ...extraEnv }),
        stdio: [stdin === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
      }),
    );
    if (stdin !== undefined) child.stdin!.end(stdin);
    let stdout = '';
    let stderr = '';
    child.stdout!.on('data', (chunk) => (stdout += chunk));
    child.stderr!.on('data', (chunk) => (stderr += chunk));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`cli ${args.join(' ')} did not finish in ${timeoutMs} ms\nstdout: ${stdout}\nstderr: ${stderr}`));
    }, timeoutMs);
    child.once('error', reject);
    child.once('close', (code) => {
      clearTimeout(timer);
      resolveRun({ code, stdout, stderr });
    });
  });
}

/** Parses `--json` output: exactly one JSON object on one line, nothing else on stdout. */
export function parseJsonOutput(result: CliResult): Record<string, unknown> {
  const lines = result.stdout.split('\n').filter((line) => line !== '');
  if (lines.length !== 1) throw new Error(`expected one line of JSON, got:\n${result.stdout}\nstderr: ${result.stderr}`);
  return JSON.parse(lines[0]!) as Record<string, unknown>;
}

/** The pid in the data dir's postmaster.pid, if the file exists. */
export function postmasterPid(dataDir: string): number | undefined {
  const file = join(dataDir, 'pg', 'postmaster.pid');
  if (!existsSync(file)) return undefined;
  const pid = Number(readFileSync(file, 'utf8').split('\n')[0]);
  return Number.isInteger(pid) && pid > 0 ? pid : undefined;
}

/** Every running `postgres` process whose data directory is this data dir's (any pid). */
export function postgresProcessesOf(dataDir: string): number[] {
  const pgDir = join(dataDir, 'pg');
  const found: number[] = [];
  for (const entry of readdirSafe('/proc')) {
    const pid = Number(entry);
    if (!Number.isInteger(pid)) continue;
    try {
      const cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
      if (cmdline.includes(pgDir) && isRunning(pid)) found.push(pid);
    } catch {
      // gone meanwhile
    }
  }
  return found;
}

function readdirSafe(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}

export async function waitFor<T>(what: string, probe: () => Promise<T | undefined> | T | undefined, timeoutMs: number): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  while (Date.now() < deadline) {
    try {
      const value = await probe();
      if (value !== undefined) return value;
    } catch (error) {
      lastError = error;
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`timed out waiting for ${what}${lastError ? `: ${String(lastError)}` : ''}`);
}
