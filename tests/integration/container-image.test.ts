import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import sharp from 'sharp';
import { parse } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testDatabaseUrl } from '../setup/test-database';
import { createTestKey } from '../helpers/api';
import { buildImage, type BuiltImage } from './support/container/dockerfile-steps';
import { startDebianPostgres, startDebianRedis, type Service } from './support/container/debian-services';
import { probeVideo } from './support/jobs/video-probe';
import { books, DIST_DIR, ensureBuild, newKey, post, REPO_ROOT, useDatabaseInThisProcess } from './support/product/product';
import { freePort, killAllRunning, spawnNode, waitServing, type Running } from './support/product/production';

// The container image without Docker: the Dockerfile's steps performed into scratch directories
// (support/container/dockerfile-steps.ts says how each RUN is performed), then the result run the
// way compose.yaml runs the image: its migrate command, its CMD (an app instance) and
// its worker command, with the image's own ENV, against Debian's PostgreSQL and Redis (started
// with compose's redis command, its password, and reached through compose's REDIS_URL). A paid
// call, a video job the separate worker runs (Debian's ffmpeg), and an upload.

const scratch = mkdtempSync(join(tmpdir(), 'wgs-image-'));
let image: BuiltImage;
let postgres: Service | undefined;
let redis: (Service & { port: number }) | undefined;

interface ComposeService {
  command?: string[];
  image?: string;
  build?: string;
}
const compose = parse(readFileSync(join(REPO_ROOT, 'compose.yaml'), 'utf8')) as {
  services: Record<string, ComposeService>;
  'x-app': { environment: Record<string, string> };
};
/** What .env would give compose (the one variable these services need of it). */
const DOT_ENV: Record<string, string> = { REDIS_PASSWORD: 'image-test-redis-password-0123456789abcdef' };

/** A compose value with .env's variables put in: ${NAME}, ${NAME:-default}, ${NAME:?message}. */
function interpolated(value: string): string {
  return value.replace(/\$\{([A-Z_0-9]+)(?::([-?])([^}]*))?\}/g, (_whole, name: string, kind?: string, text?: string) => {
    const found = DOT_ENV[name];
    if (found) return found;
    if (kind === '-') return text ?? '';
    throw new Error(`compose needs ${name}: ${text ?? 'unset'}`);
  });
}

/** compose's REDIS_URL for the app, its host the test's redis-server. */
const redisUrl = () => interpolated(compose['x-app'].environment.REDIS_URL!).replace('@redis:6379', `@127.0.0.1:${redis!.port}`);

beforeAll(async () => {
  const began = Date.now();
  ensureBuild();
  [postgres, redis] = await Promise.all([
    startDebianPostgres(),
    startDebianRedis(compose.services.redis!.command!.slice(1).map(interpolated)),
  ]);
  if (process.env.WGS_IMAGE_STEP_TIMES) process.stdout.write(`build checked, services up: ${Date.now() - began} ms\n`);
  image = buildImage(join(REPO_ROOT, 'Dockerfile'), {
    context: REPO_ROOT,
    scratch,
    installedModules: join(REPO_ROOT, 'node_modules'),
    nextBuild: join(REPO_ROOT, DIST_DIR),
    serverBundle: join(REPO_ROOT, 'dist'),
  });
}, 300_000);

afterAll(async () => {
  killAllRunning();
  await useDatabaseInThisProcess(testDatabaseUrl());
  await Promise.all([postgres?.stop(), redis?.stop()]);
  // A copy of the image is a few hundred thousand files: removed in the background.
  spawn('rm', ['-rf', scratch], { detached: true, stdio: 'ignore' }).unref();
});

/** The image's ENV with its absolute paths inside the image's filesystem (the scratch root). */
function imageEnv(): Record<string, string> {
  return Object.fromEntries(
    Object.entries(image.env).map(([name, value]) => [name, value.startsWith('/app') ? join(image.root, value) : value]),
  );
}

/** What compose.yaml and .env.example give every process of the image, pointed at this test's services. */
function deployedEnv(port: number): Record<string, string> {
  return {
    ...imageEnv(),
    HOST: '127.0.0.1',
    PORT: String(port),
    DATABASE_URL: postgres!.url,
    REDIS_URL: redisUrl(),
    SIGNING_SECRET: 'image-test-signing-secret-0123456789abcdef',
    NEXTAUTH_SECRET: 'image-test-nextauth-secret',
    NEXTAUTH_URL: `http://127.0.0.1:${port}`,
    PROVIDER_KEYS_SECRET: 'image-test-provider-keys-secret-0123456789',
    JOB_POLL_INTERVAL_SECONDS: '0.5',
    LOG_FORMAT: 'off',
  };
}

/** Runs `argv` (a CMD or a compose command) in the image's working directory. */
function runInImage(argv: string[], env: Record<string, string>): Running {
  expect(argv[0]).toBe('node');
  return spawnNode(argv.slice(1), env, join(image.root, image.workdir), Number(env.PORT ?? 0));
}

describe('the Dockerfile', () => {
  it('builds in two stages from a Node LTS slim image, runs as a non-root user, exposes its port, checks /healthz, and bakes in no secret', () => {
    expect(image.bases).toHaveLength(2);
    // One Node LTS image for both stages, pinned to its version and digest; its major is the one the tests run on.
    expect(new Set(image.bases).size).toBe(1);
    for (const base of image.bases) expect(base).toMatch(/^node:(22|24)\.\d+\.\d+-[a-z]+-slim@sha256:[0-9a-f]{64}$/);
    expect(image.bases[0]!.split(/[:.]/)[1]).toBe(process.versions.node.split('.')[0]);
    expect(image.user).toBe('node');
    expect(image.expose).toEqual([image.env.PORT]);
    expect(image.healthcheck).toContain('/healthz');
    expect(image.cmd.slice(-2)).toEqual(['dist/start.js', '--production']);
    for (const name of Object.keys(image.env)) expect(name).not.toMatch(/SECRET|TOKEN|PASSWORD|_KEY/);
    expect(existsSync(join(image.root, 'app', '.env'))).toBe(false);
  });

  it('leaves only the artefact and the production dependencies in the final stage: compiled entry points, no TypeScript source or loader', () => {
    const app = join(image.root, image.workdir);
    for (const present of [
      '.next/BUILD_ID',
      'node_modules/next',
      'prisma/migrations',
      'dist/start.js',
      'dist/worker.js',
      'dist/migrate.js',
      'dist/cli.js',
    ])
      expect(existsSync(join(app, present)), present).toBe(true);
    for (const absent of [
      'node_modules/tsx',
      'node_modules/esbuild',
      'server',
      'scripts',
      'tsconfig.json',
      'node_modules/vitest',
      'node_modules/eslint',
      'node_modules/prettier',
      'node_modules/fast-check',
      'node_modules/typescript-eslint',
      'tests',
      'components',
      '.git',
    ])
      expect(existsSync(join(app, absent)), absent).toBe(false);
    // .next/cache is there for the image optimizer to write, empty: the build's own cache is left behind.
    expect(readdirSync(join(app, '.next', 'cache'))).toEqual([]);
  });
});

describe('the image, run as compose.yaml runs it', () => {
  it("Redis asks for the password compose gives it, and the app's REDIS_URL carries it", async () => {
    // A client without the password, in Redis's own protocol: PING is refused.
    const anonymous = await new Promise<string>((resolve, reject) => {
      const socket = connect(redis!.port, '127.0.0.1', () => socket.write('PING\r\n'));
      socket.once('data', (reply) => {
        socket.destroy();
        resolve(reply.toString());
      });
      socket.once('error', reject);
    });
    expect(anonymous).toMatch(/^-NOAUTH /);
    expect(new URL(redisUrl()).password).toBe(DOT_ENV.REDIS_PASSWORD);
    const app = new Redis(redisUrl(), { lazyConnect: true, maxRetriesPerRequest: 0 });
    await app.connect();
    expect(await app.ping()).toBe('PONG');
    app.disconnect();
  });

  it('migrates with the migrate command, then serves a paid call, a video job through the separate worker, and an upload', async () => {
    const port = await freePort();
    const env = deployedEnv(port);
    const migrate = runInImage(compose.services.migrate!.command!, env);
    expect((await migrate.exited).code, migrate.output()).toBe(0);
    expect(migrate.output()).toContain('database is up to date');

    const app = runInImage(image.cmd, env);
    await waitServing(app);
    const worker = runInImage(compose.services.worker!.command!, env);
    for (let i = 0; i < 300 && !worker.output().includes('working on video jobs'); i++) await new Promise((r) => setTimeout(r, 100));
    expect(worker.output()).toContain('working on video jobs');
    expect((await fetch(`${app.base}/readyz`).then((r) => r.json())) as unknown).toMatchObject({
      status: 'ready',
      checks: { postgres: 'ok', schema: 'ok', redis: 'ok' },
    });

    await useDatabaseInThisProcess(postgres!.url);
    const key = await createTestKey({
      quota: 100,
      maxUploadBytes: 1_000_000,
      operations: {
        'text.generate': { engine: 'local', units: 1, output_formats: ['text'] },
        'videos.generate': { engine: 'local', units: 20, input_uploads: false },
        'images.generate': { engine: 'local', units: 5, input_uploads: true },
      },
    });

    // The operator CLI, compiled like the other entry points, runs in the image against the same database.
    const cli = runInImage(['node', 'dist/cli.js', 'keys', 'list', '--json'], env);
    expect((await cli.exited).code, cli.output()).toBe(0);
    expect((JSON.parse(cli.output()) as { keys: { id: string }[] }).keys.map((listed) => listed.id)).toContain(key.id);

    const text = await post(app.base, '/v1/text/generate', key.key, { input: 'hello from the image' }, newKey('img'));
    expect(text.status, text.text).toBe(200);
    expect(text.json.usage.charged_units).toBe(1);

    const submitted = await post(app.base, '/v1/videos/generate', key.key, { prompt: 'a lighthouse at dusk' }, newKey('img'));
    expect(submitted.status, submitted.text).toBe(202);
    let job: { status: string; result: { url: string; mime_type: string } | null } | undefined;
    for (let i = 0; i < 600; i++) {
      const view = await fetch(`${app.base}/v1/jobs/${submitted.json.job_id}`, { headers: { authorization: `Bearer ${key.key}` } });
      job = (await view.json()) as typeof job;
      if (job!.status === 'succeeded' || job!.status === 'failed') break;
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(job!.status, JSON.stringify(job)).toBe('succeeded');
    expect(worker.output()).not.toMatch(/failed/i);
    const video = await fetch(job!.result!.url);
    expect(video.status).toBe(200);
    const probe = probeVideo(Buffer.from(await video.arrayBuffer()));
    expect(probe.codec).toBe('h264');
    expect(probe.decodedFrames).toBeGreaterThan(0);

    const png = await sharp({ create: { width: 16, height: 16, channels: 3, background: { r: 10, g: 200, b: 90 } } })
      .png()
      .toBuffer();
    const sha256 = createHash('sha256').update(png).digest('hex');
    const created = await post(
      app.base,
      '/v1/uploads',
      key.key,
      { purpose: 'image_input', filename: 'in.png', mime_type: 'image/png', size_bytes: png.length, sha256 },
      newKey('img'),
    );
    expect(created.status, created.text).toBe(201);
    const put = await fetch(created.json.upload_url, { method: 'PUT', body: png, headers: { 'content-type': 'image/png' } });
    expect(put.status, await put.text()).toBe(200);
    const done = await post(app.base, `/v1/uploads/${created.json.upload_id}/complete`, key.key, { sha256 }, newKey('img'));
    expect(done.status, done.text).toBe(200);
    expect(existsSync(join(env.WGS_DATA_DIR!))).toBe(true); // the local store lives in the image's data dir

    expect(await books(postgres!.url, key.id)).toMatchObject({ remaining: 100 - 1 - 20, held: 0, inFlight: 0, captured: 2 });

    app.child.kill('SIGTERM');
    worker.child.kill('SIGTERM');
    expect(await app.exited).toEqual({ code: 0, signal: null });
    expect(await worker.exited).toEqual({ code: 0, signal: null });
  }, 180_000); // four processes of the image and a video job: over a minute on a busy machine
});
