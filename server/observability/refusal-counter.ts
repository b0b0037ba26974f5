import type pg from 'pg';
import sql from 'sql-template-tag';
import { prepared } from '../db/named-statement';

// Answers that did not reach an engine (400-429, 503, and 500s of the service itself) are
// counted here, in memory, per minute, key, operation, status and code, and written by one
// batched upsert every REFUSALS_FLUSH_MS (and at shutdown): no database write per refused
// request. A crash loses at most the counts of one flush interval.

interface Bucket {
  minute: Date;
  keyId: string | null;
  operation: string;
  status: number;
  code: string;
  count: number;
}

interface CounterState {
  buckets: Map<string, Bucket>;
  timer?: NodeJS.Timeout;
  flushing?: Promise<number>;
}

const state: CounterState = { buckets: new Map() };

const MINUTE_MS = 60_000;

export function countRefusal(keyId: string | undefined, operation: string, status: number, code: string, now = Date.now()): void {
  const minute = now - (now % MINUTE_MS);
  const id = `${minute}|${keyId ?? ''}|${operation}|${status}|${code}`;
  const bucket = state.buckets.get(id);
  if (bucket) bucket.count += 1;
  else state.buckets.set(id, { minute: new Date(minute), keyId: keyId ?? null, operation, status, code, count: 1 });
}

/** Counts not yet written (tests, and the shutdown log). */
export function pendingRefusals(): number {
  let total = 0;
  for (const bucket of state.buckets.values()) total += bucket.count;
  return total;
}

async function writeBuckets(pool: pg.Pool, buckets: Bucket[]): Promise<void> {
  const column = <K extends keyof Bucket>(name: K) => buckets.map((bucket) => bucket[name]);
  await pool.query(
    prepared(
      'wgs-refusals-flush',
      sql`INSERT INTO refused_requests (minute, api_key_id, operation, status, code, count)
          SELECT * FROM unnest(${column('minute')}::timestamptz[], ${column('keyId')}::uuid[], ${column('operation')}::text[],
                               ${column('status')}::int[], ${column('code')}::text[], ${column('count')}::int[])
          ON CONFLICT (minute, api_key_id, operation, status, code)
          DO UPDATE SET count = refused_requests.count + EXCLUDED.count`,
    ),
  );
}

/**
 * Writes every pending count in one statement and returns how many requests it covered. The
 * buckets are swapped out first, so counting goes on meanwhile; a failed write puts its counts
 * back for the next flush.
 */
export function flushRefusals(pool: pg.Pool): Promise<number> {
  const run = async (): Promise<number> => {
    await state.flushing?.catch(() => {});
    if (state.buckets.size === 0) return 0;
    const taken = [...state.buckets.values()];
    state.buckets = new Map();
    try {
      await writeBuckets(pool, taken);
    } catch (error) {
      for (const bucket of taken) countBucket(bucket);
      throw error;
    }
    return taken.reduce((sum, bucket) => sum + bucket.count, 0);
  };
  const flushing = run();
  state.flushing = flushing;
  return flushing;
}

function countBucket(bucket: Bucket): void {
  const id = `${bucket.minute.getTime()}|${bucket.keyId ?? ''}|${bucket.operation}|${bucket.status}|${bucket.code}`;
  const existing = state.buckets.get(id);
  if (existing) existing.count += bucket.count;
  else state.buckets.set(id, { ...bucket });
}

/** Flushes every `intervalMs` until stopped; the returned stop flushes once more. */
export function startRefusalFlush(pool: () => pg.Pool, intervalMs: number): () => Promise<void> {
  const flush = () =>
    flushRefusals(pool()).catch((error: unknown) => {
      console.error(`[refusals] flush failed, kept for the next one: ${error instanceof Error ? error.message : String(error)}`);
      return 0;
    });
  if (state.timer) clearInterval(state.timer);
  state.timer = setInterval(() => void flush(), intervalMs);
  state.timer.unref();
  return async () => {
    if (state.timer) clearInterval(state.timer);
    state.timer = undefined;
    await flush();
  };
}
