import pg from 'pg';

// The run is over when the product has settled everything it was left with: no unit hold still
// held (the dead requests' leases ran out and a sweeper returned or captured them), no video job
// still open, no job webhook delivery still pending. Read with the harness's own SQL.

const STATE = `SELECT (SELECT count(*) FROM unit_holds WHERE status = 'held')::int AS held,
                      (SELECT count(*) FROM jobs WHERE status IN ('submitted', 'running'))::int AS jobs,
                      (SELECT count(*) FROM webhook_deliveries WHERE status = 'pending')::int AS webhooks`;

export interface Quiet {
  quiet: boolean;
  waitedMs: number;
  left: { held: number; jobs: number; webhooks: number };
}

export async function waitUntilQuiet(databaseUrl: string, timeoutMs: number): Promise<Quiet> {
  const started = Date.now();
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    for (;;) {
      const left = (await client.query<Quiet['left']>(STATE)).rows[0]!;
      const quiet = left.held === 0 && left.jobs === 0 && left.webhooks === 0;
      if (quiet || Date.now() - started > timeoutMs) return { quiet, waitedMs: Date.now() - started, left };
      await new Promise((resolve) => setTimeout(resolve, 1_000));
    }
  } finally {
    await client.end();
  }
}
