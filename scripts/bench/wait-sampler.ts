import pg from 'pg';

// What PostgreSQL's client backends were waiting on, and which phase each running autovacuum was
// in, sampled every few milliseconds on a connection of its own: the cumulative statistics say
// that a vacuum ran or that commits flushed, not whether calls were waiting on it meanwhile.

/** Samples taken, and per wait event (`Lock:transactionid`, ...) or vacuum phase (`vacuum rate_windows: truncating heap`) the samples it was seen in. */
export interface WaitSamples {
  samples: number;
  seen: Map<string, number>;
}

const SAMPLE = `SELECT
  ARRAY(SELECT DISTINCT wait_event_type || ':' || wait_event FROM pg_stat_activity
         WHERE backend_type = 'client backend' AND state = 'active' AND wait_event_type IN ('Lock', 'LWLock', 'IO', 'BufferPin')) AS waits,
  ARRAY(SELECT 'vacuum ' || relid::regclass::text || ': ' || phase FROM pg_stat_progress_vacuum) AS vacuums`;

/** Samples every `everyMs` until stopped; `take` returns what was seen since the last take. */
export async function startWaitSampler(databaseUrl: string, everyMs = 5) {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  let current: WaitSamples = { samples: 0, seen: new Map() };
  let running = true;
  const loop = (async () => {
    while (running) {
      const { rows } = await client.query<{ waits: string[]; vacuums: string[] }>(SAMPLE);
      current.samples++;
      for (const name of [...rows[0]!.waits, ...rows[0]!.vacuums]) current.seen.set(name, (current.seen.get(name) ?? 0) + 1);
      await new Promise((resolve) => setTimeout(resolve, everyMs));
    }
  })();
  return {
    take(): WaitSamples {
      const taken = current;
      current = { samples: 0, seen: new Map() };
      return taken;
    },
    async stop(): Promise<void> {
      running = false;
      await loop;
      await client.end();
    },
  };
}

/** The share of samples each wait or vacuum phase was seen in, most first (those under 1% left out). */
export function waitNote({ samples, seen }: WaitSamples): string {
  const shares = [...seen]
    .map(([name, count]) => [name, (100 * count) / Math.max(samples, 1)] as const)
    .filter(([, share]) => share >= 1)
    .sort((a, b) => b[1] - a[1]);
  return `${samples} samples: ${shares.length ? shares.map(([name, share]) => `${name} ${share.toFixed(0)}%`).join(', ') : 'none waiting'}`;
}
