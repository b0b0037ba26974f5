import { randomBytes } from 'node:crypto';
import { mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testDatabaseUrl } from '../setup/test-database';
import { resetConfigForTests } from '@/server/config';
import { readMigrations } from '@/server/db/migrate';
import { disconnectRedis } from '@/server/db/redis';
import { checkReadiness, serveReadiness } from '@/server/instance/readiness';
import { ensureBuild } from './support/product/product';
import { freePort, killAllRunning, productionEnv, spawnNode, startProduction, waitServing } from './support/product/production';

// Migrations as their own step, and readiness: the production command never migrates unless
// asked and refuses a schema that is behind with one line; `npm run db:migrate` applies the
// migrations under PostgreSQL's advisory lock (two at once never race); GET /readyz answers
// 200 only when the database answers and the schema is current, and names what fails.

const serverUrl = testDatabaseUrl();
const created: string[] = [];
const MIGRATIONS = readMigrations().map((migration) => migration.name);

/** A database with nothing in it (never migrated). */
async function emptyDatabase(): Promise<string> {
  const name = `wgs_prod_${process.pid}_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE "${name}"`);
  await admin.end();
  created.push(name);
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

async function rows<T extends pg.QueryResultRow>(url: string, sql: string): Promise<T[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<T>(sql)).rows;
  } finally {
    await client.end();
  }
}

const saved = { ...process.env };

beforeAll(() => ensureBuild(), 300_000);

afterAll(async () => {
  killAllRunning();
  process.env = { ...saved };
  resetConfigForTests();
  await disconnectRedis();
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  for (const name of created) await admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
  await admin.end();
});

describe('migrations as their own step', () => {
  it('the production command and worker refuse a schema that is behind, in one line naming the migration and the command; two db:migrate at once apply each migration once; then the instance serves and is ready', async () => {
    const url = await emptyDatabase();
    const port = await freePort();
    const env = productionEnv(url, port);

    const refused = startProduction(env);
    expect((await refused.exited).code).toBe(1);
    const lines = refused.output().trim().split('\n');
    expect(lines, refused.output()).toHaveLength(1);
    expect(lines[0]).toContain(`migration ${MIGRATIONS[0]} and ${MIGRATIONS.length - 1} later ones not applied`);
    expect(lines[0]).toContain('npm run db:migrate');
    const worker = spawnNode(['dist/worker.js', '--production'], env);
    expect((await worker.exited).code).toBe(1);
    expect(worker.output()).toContain(`migration ${MIGRATIONS[0]} and`);
    // Refusing wrote nothing: the database was not migrated behind the operator's back.
    expect(await rows(url, `SELECT to_regclass('"_prisma_migrations"') AS t`)).toEqual([{ t: null }]);

    const migrations = [0, 1].map(() => spawnNode(['dist/migrate.js'], { DATABASE_URL: url }));
    for (const migration of migrations) expect((await migration.exited).code, migration.output()).toBe(0);
    const history = await rows<{ migration_name: string; n: number }>(
      url,
      `SELECT migration_name, count(*)::int AS n FROM "_prisma_migrations" WHERE finished_at IS NOT NULL GROUP BY 1 ORDER BY 1`,
    );
    expect(history).toEqual(MIGRATIONS.map((name) => ({ migration_name: name, n: 1 })));
    const said = migrations.map((migration) => migration.output()).join('');
    for (const name of MIGRATIONS) expect(said.split(`applied migration ${name}`).length - 1, name).toBe(1);

    const app = startProduction(env);
    await waitServing(app);
    expect(app.output()).toContain('in production mode');
    expect(app.output()).not.toContain('applied migration');
    const ready = await fetch(`${app.base}/readyz`);
    expect(ready.status).toBe(200);
    expect(ready.headers.get('cache-control')).toBe('no-store');
    expect(await ready.json()).toEqual({ status: 'ready', failing: [], checks: { postgres: 'ok', schema: 'ok', redis: 'not_configured' } });
    const spec = (await (await fetch(`${app.base}/v1/openapi.json`)).json()) as { paths: Record<string, unknown> };
    expect(Object.keys(spec.paths).filter((path) => /healthz|readyz/.test(path))).toEqual([]);
    // A second instance on its port names the setting (it said `listen EADDRINUSE`).
    const busy = startProduction(env);
    expect((await busy.exited).code).toBe(1);
    expect(busy.output()).toContain(`PORT ${port} is in use by another process; stop it or set PORT to another port`);
    app.child.kill('SIGTERM');
    expect(await app.exited).toEqual({ code: 0, signal: null });
  });

  it('the production command refuses to start without the settings every instance must share', async () => {
    const port = await freePort();
    const env = productionEnv('postgres://unused@127.0.0.1:1/none', port);
    const { SIGNING_SECRET: _signing, PROVIDER_KEYS_SECRET: _keys, ...lacking } = env;
    const app = startProduction(lacking);
    expect((await app.exited).code).toBe(1);
    expect(app.output().trim().split('\n')).toHaveLength(1);
    expect(app.output()).toContain('production mode needs SIGNING_SECRET, PROVIDER_KEYS_SECRET');
  });
});

describe('the production tools and DATABASE_URL', () => {
  it('the migrate step with NODE_ENV=production and no DATABASE_URL refuses in one line, and creates no embedded database', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'wgs-production-tools-'));
    const migrate = spawnNode(['dist/migrate.js'], { DATABASE_URL: undefined, WGS_DATA_DIR: dataDir });
    expect((await migrate.exited).code, migrate.output()).toBe(1);
    expect(migrate.output().trim().split('\n')).toEqual([
      'migration failed: DATABASE_URL is not set: in production (NODE_ENV=production, as in the container image, or --production) no embedded database is created; set it to the database the instances share',
    ]);
    expect(readdirSync(dataDir)).toEqual([]);
  });

  it('a DATABASE_URL that cannot be reached is named, with where it points and not its password', async () => {
    const migrate = spawnNode(['dist/migrate.js'], { DATABASE_URL: 'postgres://wgs:not-this-password@127.0.0.1:1/wgs' });
    expect((await migrate.exited).code).toBe(1);
    expect(migrate.output()).toContain('DATABASE_URL: cannot use the database at 127.0.0.1:1/wgs: connect ECONNREFUSED');
    expect(migrate.output()).not.toContain('not-this-password');
    const hostless = spawnNode(['dist/migrate.js'], { DATABASE_URL: 'postgres://' });
    expect((await hostless.exited).code).toBe(1);
    expect(hostless.output()).toContain('DATABASE_URL: must name its host');
    // Blank is unset (as compose writes an unset ${DATABASE_URL}): in production, refused as missing.
    const empty = spawnNode(['dist/migrate.js'], { DATABASE_URL: ' ' });
    expect((await empty.exited).code).toBe(1);
    expect(empty.output()).toContain('migration failed: DATABASE_URL is not set: in production');
  });
});

describe('production refuses placeholders', () => {
  it("the production command and worker refuse a secret left at the example's value, in one line naming the variable", async () => {
    const port = await freePort();
    const env = { ...productionEnv('postgres://unused@127.0.0.1:1/none', port), NEXTAUTH_SECRET: 'CHANGE-ME-another-random-secret' };
    const app = startProduction(env);
    expect((await app.exited).code).toBe(1);
    const lines = app.output().trim().split('\n');
    expect(lines, app.output()).toHaveLength(1);
    expect(lines[0]).toContain('NEXTAUTH_SECRET (still the CHANGE-ME placeholder)');
    expect(lines[0]).not.toContain('another-random-secret');

    const weak = { ...env, NEXTAUTH_SECRET: 'x'.repeat(40), PROVIDER_KEYS_SECRET: 'a-third-secret-32-characters-or-more' };
    const worker = spawnNode(['--import', 'tsx', 'scripts/worker.ts', '--production'], weak);
    expect((await worker.exited).code).toBe(1);
    expect(worker.output()).toContain("PROVIDER_KEYS_SECRET (an example file's value)");
    expect(worker.output()).toContain('NEXTAUTH_SECRET (low entropy');
  });
});

describe('GET /readyz', () => {
  async function readinessWith(env: Record<string, string | undefined>) {
    process.env = { ...saved, ...env };
    for (const [name, value] of Object.entries(env)) if (value === undefined) delete process.env[name];
    resetConfigForTests();
    await disconnectRedis();
    const response = await serveReadiness();
    return { status: response.status, text: await response.text() };
  }

  it('is 200 on a current schema and 503 naming the schema, with the pending migrations, on one that is behind', async () => {
    const current = await readinessWith({ DATABASE_URL: serverUrl, REDIS_URL: undefined });
    expect(current.status).toBe(200);
    const url = await emptyDatabase();
    const behind = await readinessWith({ DATABASE_URL: url, REDIS_URL: undefined });
    expect(behind.status).toBe(503);
    expect(JSON.parse(behind.text)).toEqual({
      status: 'not_ready',
      failing: ['schema'],
      checks: { postgres: 'ok', schema: 'behind', redis: 'not_configured' },
      pending_migrations: MIGRATIONS,
    });
  });

  it('names PostgreSQL or Redis when it does not answer, and nothing secret', async () => {
    const closed = await freePort();
    const secretUrl = `postgres://admin:hunter2-secret@127.0.0.1:${closed}/wgs`;
    const noDatabase = await readinessWith({ DATABASE_URL: secretUrl, REDIS_URL: undefined, READINESS_TIMEOUT_MS: '500' });
    expect(noDatabase.status).toBe(503);
    expect(JSON.parse(noDatabase.text)).toMatchObject({ status: 'not_ready', failing: ['postgres'], checks: { postgres: 'unreachable' } });
    expect(noDatabase.text).not.toMatch(/hunter2|admin|127\.0\.0\.1|ECONNREFUSED/);

    // PostgreSQL answers here, so its check gets a timeout no loaded machine misses (a new
    // connection and the migrations query took over 500 ms in CI); Redis on a closed port fails
    // either way, refused at once or timed out.
    const noRedis = await readinessWith({
      DATABASE_URL: serverUrl,
      REDIS_URL: `redis://:redis-secret@127.0.0.1:${closed}`,
      READINESS_TIMEOUT_MS: '5000',
    });
    expect(noRedis.status).toBe(503);
    const body = JSON.parse(noRedis.text) as Awaited<ReturnType<typeof checkReadiness>>;
    expect(body.failing).toEqual(['redis']);
    expect(body.checks.postgres).toBe('ok');
    expect(['unreachable', 'timeout']).toContain(body.checks.redis);
    expect(noRedis.text).not.toMatch(/redis-secret|127\.0\.0\.1/);
  });
});
