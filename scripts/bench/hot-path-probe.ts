// Measurements behind docs/performance.md, in-process against a throwaway embedded PostgreSQL:
//  1. key-lookup stampede: how many SELECTs N concurrent requests of one key cause when its
//     cache entry has expired (counted at the pool);
//  2. Prisma vs raw SQL (pg) on the statements of the hot path: CPU and wall time per call.
// Run: npx tsx scripts/bench/hot-path-probe.ts
import { randomUUID } from 'node:crypto';
import { startProbeDatabase } from './probe-database';
import { runProbe } from './run-probe';

/** 1. How many key lookups N concurrent requests of one key cause once its cache entry has expired (counted at the pool). */
async function probeStampede(key: string): Promise<void> {
  const { getPool, getSqlDb } = await import('../../server/db/client');
  const { authenticateKey, clearKeyCache } = await import('../../server/domain/keys/authenticate-key');
  const pool = getPool();
  const original = pool.query.bind(pool);
  let lookups = 0;
  (pool as unknown as { query: unknown }).query = (...args: unknown[]) => {
    const config = args[0] as { name?: string };
    if (config && typeof config === 'object' && config.name === 'wgs-authenticate-key') lookups++;
    return (original as (...a: unknown[]) => unknown)(...args);
  };
  for (const concurrent of [1, 20, 50]) {
    clearKeyCache();
    lookups = 0;
    await Promise.all(Array.from({ length: concurrent }, () => authenticateKey(getSqlDb(), `Bearer ${key}`)));
    console.log(`key lookup: ${concurrent} concurrent requests after the cache entry expired -> ${lookups} SELECT(s)`);
  }
  (pool as unknown as { query: unknown }).query = original;
}

const N = 2000;

/** Calls op N times in sequence after a warm-up of 200, and prints its wall and CPU time per call. */
async function time(label: string, op: (i: number) => Promise<unknown>): Promise<void> {
  for (let i = 0; i < 200; i++) await op(-i - 1);
  const cpu0 = process.cpuUsage();
  const t0 = process.hrtime.bigint();
  for (let i = 0; i < N; i++) await op(i);
  const wall = Number(process.hrtime.bigint() - t0) / 1e6 / N;
  const cpu = process.cpuUsage(cpu0);
  console.log(
    `${label.padEnd(58)} ${(wall * 1000).toFixed(0).padStart(5)} us wall, ${((cpu.user + cpu.system) / N).toFixed(0).padStart(5)} us CPU (node) per call`,
  );
}

/** 2. Prisma vs raw SQL (pg) on the statements of the hot path, sequential, after a warm-up. */
async function compareStatements(issued: { key: string; id: string }): Promise<void> {
  const { getPool, getPrisma } = await import('../../server/db/client');
  const { hashKeySecret } = await import('../../server/domain/keys/key-secret');
  const pool = getPool();
  const prisma = getPrisma();
  const hash = hashKeySecret(issued.key);
  await time('key lookup, Prisma findUnique + include version, package', () =>
    prisma.apiKey.findUnique({ where: { hash }, include: { packageVersion: { include: { package: true } } } }),
  );
  await time(
    'key lookup, Prisma $queryRaw (same SQL)',
    () =>
      prisma.$queryRaw`SELECT k.id, k.status, k.expires_at, v.id AS version_id, v.version, p.slug, v.operations,
                              v.requests_per_minute, v.concurrency, v.max_upload_bytes
                         FROM api_keys k JOIN package_versions v ON v.id = k.package_version_id JOIN packages p ON p.id = v.package_id
                        WHERE k.hash = ${hash}`,
  );
  await time('key lookup, pg named prepared statement (the product)', () =>
    pool.query({
      name: 'probe-key',
      text: `SELECT k.id, k.status, k.expires_at, v.id AS version_id, v.version, p.slug, v.operations,
                              v.requests_per_minute, v.concurrency, v.max_upload_bytes
                         FROM api_keys k JOIN package_versions v ON v.id = k.package_version_id JOIN packages p ON p.id = v.package_id
                        WHERE k.hash = $1`,
      values: [hash],
    }),
  );
  const version = await prisma.apiKey.findUniqueOrThrow({ where: { id: issued.id } });
  await time('usage event insert, Prisma create', () =>
    prisma.usageEvent.create({
      data: {
        id: randomUUID(),
        apiKeyId: issued.id,
        packageVersionId: version.packageVersionId,
        operation: 'text.generate',
        engine: 'local',
        outcome: 'succeeded',
        units: 1,
        requestId: 'req_probe',
        durationMs: 1,
      },
    }),
  );
  await time('usage event insert, pg named prepared statement', () =>
    pool.query({
      name: 'probe-usage',
      text: `INSERT INTO usage_events (id, api_key_id, package_version_id, operation, engine, outcome, units, request_id, duration_ms)
                   VALUES ($1, $2, $3, 'text.generate', 'local', 'succeeded', 1, 'req_probe', 1)`,
      values: [randomUUID(), issued.id, version.packageVersionId],
    }),
  );
}

async function main(): Promise<void> {
  const probe = await startProbeDatabase('probe');
  try {
    await probeStampede(probe.key);
    await compareStatements({ key: probe.key, id: probe.keyId });
  } finally {
    await probe.close();
  }
}

runProbe(main);
