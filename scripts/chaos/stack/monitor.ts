import pg from 'pg';
import type { KeySample } from '../history';

// Samples every key's row while the traffic runs (twice a second, its own connection, reconnecting
// after a restart of PostgreSQL) and keeps the extremes: the lowest balance, the most requests in
// flight, and any balance above the units sold.

interface Row {
  id: string;
  remaining: number;
  total: number;
  in_flight: number;
}

export interface Monitor {
  stop(): Promise<KeySample[]>;
}

export function monitorKeys(databaseUrl: string, keyIds: string[]): Monitor {
  const samples = new Map<string, KeySample>();
  let client: pg.Client | undefined;
  let running = true;
  const record = (row: Row) => {
    const sample = samples.get(row.id) ?? {
      keyId: row.id,
      samples: 0,
      minRemaining: row.remaining,
      maxInFlight: row.in_flight,
      maxAboveTotal: 0,
    };
    sample.samples++;
    sample.minRemaining = Math.min(sample.minRemaining, row.remaining);
    sample.maxInFlight = Math.max(sample.maxInFlight, row.in_flight);
    sample.maxAboveTotal = Math.max(sample.maxAboveTotal, row.remaining - row.total);
    samples.set(row.id, sample);
  };
  const loop = (async () => {
    while (running) {
      try {
        if (!client) {
          client = new pg.Client({ connectionString: databaseUrl, connectionTimeoutMillis: 2_000 });
          client.on('error', () => undefined);
          await client.connect();
        }
        const { rows } = await client.query<Row>(
          'SELECT id, remaining_units AS remaining, total_units AS total, in_flight FROM api_keys WHERE id = ANY($1::uuid[])',
          [keyIds],
        );
        rows.forEach(record);
      } catch {
        await client?.end().catch(() => undefined);
        client = undefined;
      }
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
  })();
  return {
    async stop() {
      running = false;
      await loop;
      await client?.end().catch(() => undefined);
      return [...samples.values()];
    },
  };
}
