import type pg from 'pg';
import { getConfig } from '../config';
import { getPool, getProvisionalPool } from '../db/client';
import type { Metrics } from './metrics';

// Read at scrape time only, so they cost nothing between scrapes: two indexed queries, waited for
// as long as /readyz waits (READINESS_TIMEOUT_MS): a database that does not answer must not make
// the scrape outlast Prometheus's timeout (10 s) and lose the process metrics with it.

const JOB_STATES = ['submitted', 'running'] as const;

function setPool(metrics: Metrics, name: string, pool: pg.Pool): void {
  metrics.dbPool.labels(name, 'total').set(pool.totalCount);
  metrics.dbPool.labels(name, 'idle').set(pool.idleCount);
  metrics.dbPool.labels(name, 'waiting').set(pool.waitingCount);
}

async function collectDatabaseGauges(metrics: Metrics): Promise<void> {
  const pool = getPool();
  setPool(metrics, 'main', pool);
  setPool(metrics, 'provisional', getProvisionalPool());
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error('the database did not answer in time')), getConfig().READINESS_TIMEOUT_MS);
  });
  try {
    const queries = Promise.all([
      pool.query<{ open: string; units: string }>(
        "SELECT count(*) AS open, COALESCE(sum(units), 0) AS units FROM unit_holds WHERE status = 'held'",
      ),
      pool.query<{ status: string; count: string; oldest_seconds: number | null }>(
        `SELECT status, count(*) AS count, EXTRACT(EPOCH FROM now() - min(created_at))::float8 AS oldest_seconds
           FROM jobs WHERE status IN ('submitted', 'running') GROUP BY status`,
      ),
    ]);
    queries.catch(() => {}); // one that fails after the wait is over
    const [holds, jobs] = await Promise.race([queries, late]);
    metrics.holdsOpen.set(Number(holds.rows[0]?.open ?? 0));
    metrics.heldUnits.set(Number(holds.rows[0]?.units ?? 0));
    for (const state of JOB_STATES) {
      const row = jobs.rows.find((r) => r.status === state);
      metrics.videoJobs.labels(state).set(Number(row?.count ?? 0));
      if (state === 'submitted') metrics.videoQueueAge.set(Math.max(0, row?.oldest_seconds ?? 0));
    }
    metrics.databaseUp.set(1);
  } catch {
    // The database does not answer: the process metrics are still worth a scrape; these keep their last values.
    metrics.databaseUp.set(0);
  } finally {
    clearTimeout(timer);
  }
}

/** The exposition text of every metric, the database-wide gauges read now. */
export async function scrapeMetrics(metrics: Metrics): Promise<string> {
  await collectDatabaseGauges(metrics);
  return metrics.registry.metrics();
}
