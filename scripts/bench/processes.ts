import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createWriteStream, existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { PRODUCT_LOG, ROOT } from './settings';

// The processes a bench run starts (the product, a second instance, the instant provider, the
// bare floor, the CLI), and their end: every one is stopped, and the data dir removed, whatever
// way the run ends.

const children: ChildProcess[] = [];
let dataDirToRemove: string | undefined;

/** The run's temporary data dir, removed (its PostgreSQL stopped) by `shutdown`. */
export function removeOnShutdown(dataDir: string): void {
  dataDirToRemove = dataDir;
}

/** Starts `node ARGS` and resolves once its stdout matched `waitFor`. */
export function spawnNode(args: string[], env: NodeJS.ProcessEnv, waitFor: RegExp, timeoutMs: number): Promise<ChildProcess> {
  return new Promise((resolveChild, reject) => {
    const child = spawn(process.execPath, args, { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
    children.push(child);
    let output = '';
    const timer = setTimeout(() => reject(new Error(`${args.join(' ')} not ready in ${timeoutMs} ms:\n${output}`)), timeoutMs);
    if (PRODUCT_LOG) {
      const file = createWriteStream(PRODUCT_LOG, { flags: 'a' });
      child.stdout!.pipe(file);
      child.stderr!.pipe(file);
    }
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      if (waitFor.test(output)) {
        clearTimeout(timer);
        // Ready: what it prints from now on (a log line per request) is drained, not kept and searched.
        child.stdout!.off('data', onData);
        child.stdout!.resume();
        output = '';
        resolveChild(child);
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`${args.join(' ')} exited with ${code}:\n${output}`));
    });
  });
}

/** Stops one started process and waits for its exit. */
export async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await exited;
}

/** `npm run cli -- ARGS` (a `--json` command): its last line, parsed. */
export function runCli(args: string[], env: NodeJS.ProcessEnv): Record<string, unknown> {
  const result = spawnSync('npm', ['run', '--silent', 'cli', '--', ...args], { cwd: ROOT, env, encoding: 'utf8', timeout: 120_000 });
  if (result.status !== 0) throw new Error(`cli ${args.join(' ')} failed:\n${result.stdout}\n${result.stderr}`);
  return JSON.parse(result.stdout.trim().split('\n').pop()!) as Record<string, unknown>;
}

const running = (child: ChildProcess) => child.exitCode === null && child.signalCode === null;

/** Stops every started process (SIGKILL after 20 s) and removes the data dir. */
export async function shutdown(): Promise<void> {
  for (const child of children) if (running(child)) child.kill('SIGTERM');
  const deadline = Date.now() + 20_000;
  while (Date.now() < deadline && children.some(running)) await new Promise((r) => setTimeout(r, 100));
  for (const child of children) if (running(child)) child.kill('SIGKILL');
  const dataDir = dataDirToRemove;
  if (!dataDir) return;
  // The app stops its embedded PostgreSQL on SIGTERM; a survivor (app killed) is stopped here.
  const pidFile = join(dataDir, 'pg', 'postmaster.pid');
  if (existsSync(pidFile)) {
    const pid = Number(readFileSync(pidFile, 'utf8').split('\n')[0]);
    try {
      process.kill(pid, 'SIGINT');
      await new Promise((r) => setTimeout(r, 1_000));
    } catch {
      // already gone
    }
  }
  rmSync(dataDir, { recursive: true, force: true });
}

/** Runs a probe's `main`, then stops what it started; when it fails, prints why and exits 1 (after stopping them too). */
export function runStartingProcesses(main: () => Promise<void>): void {
  main().then(shutdown, async (error: unknown) => {
    console.error(error);
    await shutdown();
    process.exit(1);
  });
}
