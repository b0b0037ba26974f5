import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import { join, resolve } from 'node:path';
import { startCommand } from '../../lib/start-command';

// The product's processes of a run: app instances started exactly as `npm start` starts
// scripts/start.ts, and the video worker as `npm run worker` runs scripts/worker.ts. Each writes to
// a log file of its own in the run's folder, can be SIGKILLed and started again on the same port,
// and is killed whatever way the run ends.

export const ROOT = resolve(import.meta.dirname, '..', '..', '..');

const children = new Set<ChildProcess>();

const alive = (child: ChildProcess) => child.exitCode === null && child.signalCode === null;

/** SIGKILLs every process the run started that still runs. */
export function killAllProcesses(): void {
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
}

function killer(get: () => ChildProcess | undefined, mark: () => void) {
  return async () => {
    const child = get();
    mark();
    if (!child || !alive(child)) return;
    const exited = new Promise((resolveExit) => child.once('exit', resolveExit));
    child.kill('SIGKILL');
    await exited;
  };
}

/** An app instance on `port`: up once its /healthz answers 200. */
export function appInstance(name: string, port: number, env: NodeJS.ProcessEnv, logDir: string): ProductProcess {
  const command = startCommand(ROOT);
  const base = `http://127.0.0.1:${port}`;
  let child: ChildProcess | undefined;
  const instance: ProductProcess = {
    name,
    base,
    up: false,
    async start() {
      child = spawnLogged(`app-${name}`, command.args, { ...env, ...command.env, PORT: String(port), HOST: '127.0.0.1' }, logDir);
      const started = child;
      const deadline = Date.now() + 240_000;
      while (Date.now() < deadline) {
        if (!alive(started)) throw new Error(`app ${name} exited while starting (see ${logDir}/app-${name}.log)`);
        const healthy = await fetch(`${base}/healthz`, { signal: AbortSignal.timeout(5_000) })
          .then(async (response) => (await response.arrayBuffer(), response.status === 200))
          .catch(() => false);
        if (healthy) {
          instance.up = true;
          return;
        }
        await sleep(250);
      }
      throw new Error(`app ${name} did not answer /healthz in 240 s (see ${logDir}/app-${name}.log)`);
    },
    kill: killer(
      () => child,
      () => (instance.up = false),
    ),
  };
  return instance;
}

/** The video worker: up once it says it works on jobs. */
export function workerProcess(env: NodeJS.ProcessEnv, logDir: string): ProductProcess {
  let child: ChildProcess | undefined;
  const worker: ProductProcess = {
    name: 'worker',
    up: false,
    async start() {
      child = spawnLogged('worker', ['--import', 'tsx', 'scripts/worker.ts'], env, logDir);
      const started = child;
      await new Promise<void>((resolveReady, reject) => {
        const timer = setTimeout(() => reject(new Error(`the worker did not start in 120 s (see ${logDir}/worker.log)`)), 120_000);
        started.stdout!.on('data', (chunk: Buffer) => {
          if (!chunk.toString().includes('working on video jobs')) return;
          clearTimeout(timer);
          resolveReady();
        });
        started.once('exit', () => {
          clearTimeout(timer);
          reject(new Error(`the worker exited while starting (see ${logDir}/worker.log)`));
        });
      });
      worker.up = true;
    },
    kill: killer(
      () => child,
      () => (worker.up = false),
    ),
  };
  return worker;
}
