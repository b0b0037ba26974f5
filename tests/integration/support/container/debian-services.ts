import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { userInfo, tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { freePort } from '../../../../server/db/free-port';

// Debian's PostgreSQL and Redis (apt-get install postgresql redis-server; .ci/run does), each
// started on 127.0.0.1, a free port and a temporary data directory, as the services the image
// runs against in compose.yaml.

export interface Service {
  url: string;
  stop(): Promise<void>;
}

function postgresBin(): string {
  const base = '/usr/lib/postgresql';
  const versions = existsSync(base) ? readdirSync(base).filter((version) => existsSync(join(base, version, 'bin', 'postgres'))) : [];
  if (versions.length === 0) throw new Error("Debian's PostgreSQL is needed by this test: apt-get install -y postgresql (.ci/run does)");
  return join(base, versions.sort((a, b) => Number(b) - Number(a))[0]!, 'bin');
}

/** PostgreSQL refuses to run as root: as root, the server runs as Debian's postgres user. */
function asServerUser(command: string, args: string[]): [string, string[]] {
  return userInfo().uid === 0 ? ['runuser', ['-u', 'postgres', '--', command, ...args]] : [command, args];
}

function stopped(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
    setTimeout(() => child.kill('SIGKILL'), 10_000).unref();
  });
}

export async function startDebianPostgres(): Promise<Service> {
  const bin = postgresBin();
  const dir = mkdtempSync(join(tmpdir(), 'wgs-debian-pg-'));
  if (userInfo().uid === 0) {
    const uid = Number(spawnSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).stdout.trim());
    const gid = Number(spawnSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).stdout.trim());
    chownSync(dir, uid, gid);
  }
  const data = join(dir, 'data');
  const [initCommand, initArgs] = asServerUser(join(bin, 'initdb'), ['-D', data, '-U', 'wgs', '-A', 'trust', '-E', 'UTF8', '--no-sync']);
  const init = spawnSync(initCommand, initArgs, { encoding: 'utf8' });
  if (init.status !== 0) throw new Error(`initdb failed: ${init.stderr}`);
  const port = await freePort();
  const [command, args] = asServerUser(join(bin, 'postgres'), [
    '-D',
    data,
    '-p',
    String(port),
    '-h',
    '127.0.0.1',
    '-k',
    dir,
    '-c',
    'fsync=off',
    '-c',
    'max_connections=200',
  ]);
  const server = spawn(command, args, { stdio: ['ignore', 'ignore', 'pipe'] });
  let log = '';
  server.stderr!.on('data', (chunk: Buffer) => (log += chunk.toString()));
  const admin = `postgres://wgs@127.0.0.1:${port}/postgres`;
  for (let attempt = 0; ; attempt++) {
    const client = new pg.Client({ connectionString: admin });
    try {
      await client.connect();
      await client.query('CREATE DATABASE wgs');
      await client.end();
      break;
    } catch (error) {
      await client.end().catch(() => {});
      if (attempt > 100 || server.exitCode !== null) throw new Error(`PostgreSQL did not start: ${String(error)}\n${log}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  return {
    url: `postgres://wgs@127.0.0.1:${port}/wgs`,
    async stop() {
      await stopped(server);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Debian's redis-server with `args` (compose's redis command after `redis-server`) on 127.0.0.1 and a free port; the URL names no password. */
export async function startDebianRedis(args: string[] = ['--save', '', '--appendonly', 'no']): Promise<Service & { port: number }> {
  const port = await freePort();
  if (spawnSync('redis-server', ['--version']).error)
    throw new Error('redis-server is needed by this test: apt-get install -y redis-server (.ci/run does)');
  // Its files (compose's command keeps an append-only file) go to a directory of its own, not the repository's.
  const dir = mkdtempSync(join(tmpdir(), 'wgs-redis-'));
  const server = spawn('redis-server', [...args, '--port', String(port), '--bind', '127.0.0.1', '--dir', dir], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  await new Promise<void>((resolve, reject) => {
    server.stdout!.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes('Ready to accept connections')) resolve();
    });
    server.once('exit', (code) => reject(new Error(`redis-server exited with ${code}: ${output}`)));
  });
  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    stop: async () => {
      await stopped(server);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
