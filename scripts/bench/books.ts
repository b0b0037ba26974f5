import type pg from 'pg';
import type { AnswerTally } from './load';

// What the bench reads of the product's database: whether a request wrote anything, whether
// requests are still holding units, and the books of the bench keys once the load is over.

/** Units each bench key starts with (its package's quota; every bench call costs 1 unit). */
export const BENCH_QUOTA = 100_000_000;

/**
 * What a paid or rejected request could write: row counts, units, rate points, last use. A rate
 * point sets its window's expire_second to its own second + 61, so "windows taken since `since`"
 * counts the points of the row and nothing the sweep of idle windows removes.
 */
export async function writeSnapshot(client: pg.Client, since?: number): Promise<{ text: string; second: number }> {
  const { rows } = await client.query<{ s: string; second: string }>(
    `SELECT extract(epoch FROM now())::bigint AS second, concat_ws(' ',
       (SELECT count(*) FROM idempotency_records), (SELECT count(*) FROM usage_events),
       (SELECT count(*) FROM unit_holds), (SELECT count(*) FROM unit_holds WHERE status = 'held'),
       (SELECT count(*) FROM rate_windows WHERE expire_second >= coalesce($1::bigint, extract(epoch FROM now())::bigint) + 61),
       (SELECT sum(remaining_units) FROM api_keys), (SELECT sum(in_flight) FROM api_keys),
       (SELECT max(last_used_at) FROM api_keys)) AS s`,
    [since ?? null],
  );
  return { text: rows[0]!.s, second: Number(rows[0]!.second) };
}

/** Waits a second: requests still in flight when the load stopped finish. */
export async function settle(): Promise<void> {
  await new Promise((r) => setTimeout(r, 1_000));
}

/**
 * Waits (up to 2 min) until no request holds units: a load generator that gave up on requests
 * (a backlog at a fixed rate) leaves them running in the server.
 */
export async function drain(client: pg.Client): Promise<void> {
  for (let waited = 0; waited < 120; waited++) {
    const { rows } = await client.query<{ n: number }>('SELECT coalesce(sum(in_flight), 0)::int AS n FROM api_keys');
    if (rows[0]!.n === 0) return;
    await settle();
  }
}

export interface Books {
  label: string;
  remaining: number;
  captured: number;
  usage: number;
  held: number;
  /** The paid answers the key's loads got and the requests they sent (runner.ts), when any were counted. */
  answered?: AnswerTally;
}

/** Each bench key's books: units left, units captured, succeeded usage events, holds still open. */
export async function readBooks(client: pg.Client): Promise<Books[]> {
  const { rows } = await client.query<{ label: string; remaining: number; captured: string; usage: string; held: string }>(
    `SELECT k.label, k.remaining_units AS remaining,
            (SELECT coalesce(sum(units),0) FROM unit_holds h WHERE h.api_key_id = k.id AND h.status = 'captured')::text AS captured,
            (SELECT count(*) FROM usage_events u WHERE u.api_key_id = k.id AND u.outcome = 'succeeded')::text AS usage,
            (SELECT count(*) FROM unit_holds h WHERE h.api_key_id = k.id AND h.status = 'held')::text AS held
       FROM api_keys k JOIN package_versions v ON v.id = k.package_version_id JOIN packages p ON p.id = v.package_id
      WHERE p.slug IN ('bench', 'bench-provider') ORDER BY k.label`,
  );
  return rows.map((r) => ({
    label: r.label,
    remaining: Number(r.remaining),
    captured: Number(r.captured),
    usage: Number(r.usage),
    held: Number(r.held),
  }));
}

/**
 * The books balance: every unit taken was captured, one succeeded usage event per unit, no hold
 * left open; and the key was charged a unit for every paid answer it got, and for no more calls
 * than were sent (a call whose answer the load stopped waiting for may have been charged).
 */
export function booksBalance(books: Books[]): boolean {
  const charged = ({ captured, answered }: Books) => !answered || (answered.paid <= captured && captured <= answered.sent);
  return (
    books.length > 0 && books.every((b) => b.remaining + b.captured === BENCH_QUOTA && b.usage === b.captured && b.held === 0 && charged(b))
  );
}
