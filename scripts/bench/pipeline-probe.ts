// The /v1 text.generate pipeline called in-process (no Next.js, no HTTP), sequentially, against a
// throwaway embedded PostgreSQL: its own CPU per call, next to a bare `SELECT 1` and the cost of
// building a Request. Run: npx tsx scripts/bench/pipeline-probe.ts
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
async function main() {
  const dataDir = mkdtempSync(join(tmpdir(), 'wgs-pp-'));
  const { startEmbeddedPostgres } = await import('../../server/db/embedded-postgres');
  const { migrateDatabase } = await import('../../server/db/migrate');
  const db = await startEmbeddedPostgres({ dataDir });
  await migrateDatabase(db.url);
  process.env.DATABASE_URL = db.url;
  process.env.SIGNING_SECRET = 'x'.repeat(40);
  const { getPrisma, getPool, disconnectDb } = await import('../../server/db/client');
  const { applyPackages, parsePackagesFile } = await import('../../server/domain/packages/apply-packages');
  const { issueKey } = await import('../../server/domain/keys/issue-key');
  const { CLI_ACTOR } = await import('../../server/domain/actor');
  await applyPackages(
    getPrisma(),
    CLI_ACTOR,
    parsePackagesFile({
      providers: {},
      packages: [
        {
          slug: 'pp',
          name: 'pp',
          quota_units: 10_000_000,
          limits: { requests_per_minute: 1_000_000, concurrency: 1000 },
          operations: { 'text.generate': { engine: 'local', units: 1 } },
        },
      ],
    }),
  );
  const issued = await issueKey(getPrisma(), CLI_ACTOR, { packageSlug: 'pp' });
  const { textGenerateRoute } = await import('../../server/http/routes/text-and-code');
  let n = 0;
  const req = (body = JSON.stringify({ input: 'Summarise the benefits of idempotent APIs in two sentences.' })) =>
    new Request('http://127.0.0.1:1/v1/text/generate', {
      method: 'POST',
      headers: { authorization: `Bearer ${issued.key}`, 'content-type': 'application/json', 'idempotency-key': `pp-probe-${++n}` },
      body,
    });
  const pool = getPool();
  const run = async (label: string, N: number, f: () => Promise<unknown>) => {
    for (let i = 0; i < 300; i++) await f();
    const c0 = process.cpuUsage();
    const t0 = performance.now();
    for (let i = 0; i < N; i++) await f();
    const c = process.cpuUsage(c0);
    console.log(
      label.padEnd(40),
      ((c.user + c.system) / N).toFixed(0),
      'us CPU/call',
      (((performance.now() - t0) / N) * 1000).toFixed(0),
      'us wall',
    );
  };
  await run('pipeline text.generate (in-process)', 3000, async () => {
    const r = await textGenerateRoute(req());
    if (r.status !== 200) throw new Error(String(r.status) + (await r.text()));
    await r.text();
  });
  await run('pipeline 422', 3000, async () => {
    const r = await textGenerateRoute(req('{"input":""}'));
    await r.text();
  });
  await run('pg SELECT 1 (pool.query)', 3000, () => pool.query('SELECT 1'));
  await run('new Request + read body only', 3000, async () => {
    await req().text();
  });
  await disconnectDb();
  await db.stop();
  rmSync(dataDir, { recursive: true, force: true });
}
main().then(
  () => process.exit(0),
  (e) => {
    console.error(e);
    process.exit(1);
  },
);
