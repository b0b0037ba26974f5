import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../../../../server/db/free-port';
import { startCommand } from '../../../../scripts/lib/start-command';
import { DIST_DIR, REPO_ROOT, SIGNING_SECRET } from './product';

// The production command (`npm run start:production`) and the production worker as child
// processes: what a container or a pod runs.

export interface Running {
  child: ChildProcess;
  base: string;
  port: number;
  output(): string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** The settings the production command requires, for a database of the tests. */
export function productionEnv(databaseUrl: string, port: number): Record<string, string> {
  return {
    DATABASE_URL: databaseUrl,
    SIGNING_SECRET,
    NEXTAUTH_SECRET: 'production-test-nextauth-secret',
    NEXTAUTH_URL: `http://127.0.0.1:${port}`,
    PROVIDER_KEYS_SECRET: 'production-test-provider-keys-secret-0123456789',
    HOST: '127.0.0.1',
    PORT: String(port),
    RUN_WORKER: 'false',
    NEXT_DIST_DIR: DIST_DIR,
    WGS_DATA_DIR: mkdtempSync(join(tmpdir(), 'wgs-production-files-')),
  };
}

/** The test's environment without what would leak into the product, with `extra` (a name set to undefined: unset). */
function cleanEnv(extra: Record<string, string | undefined>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const name of [
    'NODE_OPTIONS',
    'VITEST',
    'VITEST_WORKER_ID',
    'VITEST_POOL_ID',
    'TEST_DATABASE_URL',
    'PUBLIC_BASE_URL',
    'REDIS_URL',
    'SIGNING_SECRET',
    'RUN_WORKER',
  ])
    delete env[name];
  const merged: NodeJS.ProcessEnv = { ...env, NODE_ENV: 'production', NEXT_TELEMETRY_DISABLED: '1', ...extra };
  for (const [name, value] of Object.entries(extra)) if (value === undefined) delete merged[name];
  return merged;
}

const started = new Set<ChildProcess>();

export function killAllRunning(): void {
  for (const child of started) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  started.clear();
}

/** Spawns `node <args>` in `cwd` with exactly the package.json start script's node flags when `args` is omitted. */
export function spawnNode(args: string[], env: Record<string, string | undefined>, cwd = REPO_ROOT, port = Number(env.PORT ?? 0)): Running {
  const child = spawn(process.execPath, args, { cwd, env: cleanEnv(env), stdio: ['ignore', 'pipe', 'pipe'] });
  started.add(child);
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  return { child, base: `http://127.0.0.1:${port}`, port, output: () => output, exited };
}

/** `npm run start:production` (plain node on the compiled dist/start.js) with `env` (productionEnv's settings and more). */
export function startProduction(env: Record<string, string>): Running {
  const command = startCommand(REPO_ROOT, 'start:production');
  return spawnNode(command.args, { ...command.env, ...env });
}

/** Resolves once the launcher said it serves and /healthz answers 200; throws with the output when the process exits first. */
export async function waitServing(running: Running, timeoutMs = 120_000): Promise<void> {
  let gone = false;
  void running.exited.then(() => (gone = true));
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (gone) throw new Error(`exited before it served:\n${running.output()}`);
    try {
      const response = await fetch(`${running.base}/healthz`, { signal: AbortSignal.timeout(5_000) });
      await response.arrayBuffer();
      if (response.status === 200 && running.output().includes('[wgs] serving on')) return;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error(`no /healthz on ${running.port}:\n${running.output()}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

export { freePort };
