// What the pool's Client subclass (server/db/client.ts: a connection whose query timed out is
// closed, not reused) costs per query: the same statements through a pool of plain pg.Client and
// a pool of ClosingOnTimeoutClient, interleaved in rounds, CPU of this process per query.
//   npx tsx scripts/bench/pg-client-probe.ts     (PROBE_QUERIES per round, default 20000)
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';

const QUERIES = Number(process.env.PROBE_QUERIES ?? 20_000);
const ROUNDS = 6;
const CONCURRENCY = 10;

async function cpuPerQuery(pool: pg.Pool): Promise<number> {
  const before = process.cpuUsage();
  let next = 0;
  const worker = async () => {
    while (next++ < QUERIES) await pool.query('SELECT $1::int AS n', [next]);
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  const spent = process.cpuUsage(before);
  return (spent.user + spent.system) / 1000 / QUERIES;
}

async function main(): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), 'wgs-pg-client-probe-'));
  const { startEmbeddedPostgres } = await import('../../server/db/embedded-postgres');
  const database = await startEmbeddedPostgres({ dataDir });
  try {
    const { ClosingOnTimeoutClient } = await import('../../server/db/client');
    const options = { connectionString: database.url, max: CONCURRENCY, query_timeout: 30_000 };
    const pools = {
      'pg.Client': new pg.Pool(options),
      ClosingOnTimeoutClient: new pg.Pool({ ...options, Client: ClosingOnTimeoutClient }),
    };
    const results: Record<string, number[]> = { 'pg.Client': [], ClosingOnTimeoutClient: [] };
    for (let round = 0; round < ROUNDS; round++) {
      for (const [name, pool] of Object.entries(pools)) results[name]!.push(await cpuPerQuery(pool));
    }
    for (const [name, figures] of Object.entries(results)) {
      const sorted = figures.slice(1).sort((a, b) => a - b); // the first round warms the JIT
      console.log(
        `${name.padEnd(24)} µs CPU per query: median ${(sorted[sorted.length >> 1]! * 1000).toFixed(1)} (${sorted.map((f) => (f * 1000).toFixed(1)).join(', ')})`,
      );
    }
    await Promise.all(Object.values(pools).map((pool) => pool.end()));
  } finally {
    await database.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

void main();
