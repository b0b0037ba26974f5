import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import { join, resolve } from 'node:path';
import { startCommand } from '../../lib/start-command';

// The product's processes of a run: app instances started exactly as `npm start` starts
// scripts/start.mjs, and the video worker as `npm run worker` runs scripts/worker.ts. Each writes to
// a log file of its own in the run's folder, can be SIGKILLed and started again on the same port,
// and is killed whatever way the run ends.

export const ROOT = resolve(import.meta.dirname, '..', '..', '..');

const children = new Set<ChildProcess>();
let stopping = false;

const alive = (child: ChildProcess) => child.exitCode === null && child.signalCode === null;

/** SIGKILLs every process the run started that still runs (and starts none again). */
export function killAllProcesses(): void {
  stopping = true;
  for (const child of children) if (alive(child)) child.kill('SIGKILL');
}

function spawnLogged(name: string, args: string[], env: NodeJS.ProcessEnv, logDir: string): ChildProcess {
  const child = spawn(process.execPath, args, { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  children.add(child);
  child.once('exit', () => children.delete(child));
  const log = createWriteStream(join(logDir, `${name}.log`), { flags: 'a' });
  child.stdout!.pipe(log, { end: false });
  child.stderr!.pipe(log, { end: false });
  return child;
}

const sleep = (ms: number) => new Promise((resolveSleep) => setTimeout(resolveSleep, ms));

/** A process of the product that the run kills and starts again. */
export interface ProductProcess {
  name: string;
  /** http://127.0.0.1:PORT for an app instance. */
  base?: string;
  up: boolean;
  start(): Promise<void>;
  kill(): Promise<void>;
  /** Exits the run did not cause (each is followed by a start, as a supervisor would). */
  crashes: string[];
}

type Ready = (child: ChildProcess, deadline: number) => Promise<boolean>;

/** A process started by `spawnOne`, up once `ready`; SIGKILLed on demand; started again when it exits on its own. */
function managedProcess(
  name: string,
  logName: string,
  spawnOne: () => ChildProcess,
  ready: Ready,
  logDir: string,
  base?: string,
): ProductProcess {
  let child: ChildProcess | undefined;
  let killing = false;
  const managed: ProductProcess = {
    name,
    base,
    up: false,
    crashes: [],
    async start() {
      killing = false;
      const started = await superviseStart(logName, spawnOne, ready, logDir);
      child = started;
      managed.up = true;
      started.once('exit', (code, signal) => {
        if (killing || stopping || child !== started) return;
        managed.up = false;
        managed.crashes.push(`${new Date().toISOString()}: exited with ${code ?? signal}`);
        void managed.start().catch(() => undefined);
      });
    },
    async kill() {
      killing = true;
      managed.up = false;
      if (!child || !alive(child)) return;
      const exited = new Promise((resolveExit) => child!.once('exit', resolveExit));
      child.kill('SIGKILL');
      await exited;
    },
  };
  return managed;
}

/** Spawns until `ready` resolves true for one child (a supervisor's restart of a process that exits while starting). */
async function superviseStart(name: string, spawnOne: () => ChildProcess, ready: Ready, logDir: string) {
  const deadline = Date.now() + 240_000;
  while (Date.now() < deadline) {
    const child = spawnOne();
    if (await ready(child, deadline)) return child;
    if (alive(child)) child.kill('SIGKILL');
    await sleep(1_000);
  }
  throw new Error(`${name} did not start in 240 s (see ${logDir}/${name}.log)`);
}

/** Polls /healthz until it answers 200 (true), or the child exits or the deadline passes (false). */
async function healthy(base: string, child: ChildProcess, deadline: number): Promise<boolean> {
  while (alive(child) && Date.now() < deadline) {
    const ok = await fetch(`${base}/healthz`, { signal: AbortSignal.timeout(5_000) })
      .then(async (response) => (await response.arrayBuffer(), response.status === 200))
      .catch(() => false);
    if (ok) return true;
    await sleep(250);
  }
  return false;
}

/** Resolves true once the child prints `line`, false if it exits first or the deadline passes. */
function printed(child: ChildProcess, line: string, deadline: number): Promise<boolean> {
  return new Promise((resolveReady) => {
    const timer = setTimeout(() => resolveReady(false), deadline - Date.now());
    const done = (ready: boolean) => {
      clearTimeout(timer);
      resolveReady(ready);
    };
    child.stdout!.on('data', (chunk: Buffer) => chunk.toString().includes(line) && done(true));
    child.once('exit', () => done(false));
  });
}

/** An app instance on `port`: up once its /healthz answers 200. */
export function appInstance(name: string, port: number, env: NodeJS.ProcessEnv, logDir: string): ProductProcess {
  const command = startCommand(ROOT);
  const base = `http://127.0.0.1:${port}`;
  const appEnv = { ...env, ...command.env, PORT: String(port), HOST: '127.0.0.1' };
  const spawnOne = () => spawnLogged(`app-${name}`, command.args, appEnv, logDir);
  return managedProcess(name, `app-${name}`, spawnOne, (child, deadline) => healthy(base, child, deadline), logDir, base);
}

/** The video worker: up once it says it works on jobs. */
export function workerProcess(env: NodeJS.ProcessEnv, logDir: string): ProductProcess {
  const spawnOne = () => spawnLogged('worker', ['--import', 'tsx', 'scripts/worker.ts'], env, logDir);
  return managedProcess('worker', 'worker', spawnOne, (child, deadline) => printed(child, 'working on video jobs', deadline), logDir);
}
