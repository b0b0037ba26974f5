import type pg from 'pg';

// The books as the database keeps them, read with the checker's own SQL (never the product's
// code), once the run has quiesced: keys, unit holds, usage events, jobs, idempotency records and
// purchases.

export interface BookKey {
  id: string;
  remaining: number;
  total: number;
  inFlight: number;
  concurrency: number;
  requestsPerMinute: number;
  purchaseId: string | null;
}

export interface BookHold {
  id: string;
  keyId: string;
  units: number;
  operation: string;
  requestId: string;
  status: 'held' | 'captured' | 'released';
  delivered: boolean;
  createdAtMs: number;
}

export interface BookUsage {
  id: string;
  keyId: string;
  operation: string;
  outcome: 'succeeded' | 'failed';
  units: number;
  /** The engine that answered (on failure: the last one called). */
  engine: string;
  errorCode: string | null;
  requestId: string;
  holdId: string | null;
  jobId: string | null;
  enginesTried: string[];
}

export interface BookJob {
  id: string;
  keyId: string;
  status: string;
  units: number;
  requestId: string;
  holdStatus: string | null;
  chargedOnCancel: boolean;
}

export interface BookRecord {
  keyId: string;
  key: string;
  status: string;
  responseStatus: number | null;
  responseBody: string | null;
}

export interface BookPurchase {
  id: string;
  kind: 'package' | 'top_up';
  status: 'open' | 'fulfilled';
  keyId: string | null;
  units: number;
  sessionId: string | null;
  /** Keys whose purchase_id is this purchase. */
  keysIssued: number;
}

export interface Books {
  keys: BookKey[];
  holds: BookHold[];
  usage: BookUsage[];
  jobs: BookJob[];
  records: BookRecord[];
  purchases: BookPurchase[];
}

const QUERIES = {
  keys: `SELECT k.id, k.remaining_units AS remaining, k.total_units AS total, k.in_flight AS "inFlight", v.concurrency,
                v.requests_per_minute AS "requestsPerMinute", k.purchase_id AS "purchaseId"
           FROM api_keys k JOIN package_versions v ON v.id = k.package_version_id`,
  holds: `SELECT id, api_key_id AS "keyId", units, operation, request_id AS "requestId", status::text AS status,
                 delivered_at IS NOT NULL AS delivered, (extract(epoch FROM created_at) * 1000)::float8 AS "createdAtMs"
            FROM unit_holds`,
  usage: `SELECT id, api_key_id AS "keyId", operation, outcome::text AS outcome, units, engine, error_code AS "errorCode",
                 request_id AS "requestId", hold_id AS "holdId", job_id AS "jobId", engines_tried AS "enginesTried"
            FROM usage_events`,
  jobs: `SELECT j.id, j.api_key_id AS "keyId", j.status::text AS status, j.units, j.request_id AS "requestId",
                h.status::text AS "holdStatus", j.charged_on_cancel AS "chargedOnCancel"
           FROM jobs j LEFT JOIN unit_holds h ON h.id = j.hold_id`,
  records: `SELECT api_key_id AS "keyId", key, status::text AS status, response_status AS "responseStatus",
                   response_body AS "responseBody"
              FROM idempotency_records`,
  purchases: `SELECT p.id, p.kind::text AS kind, p.status::text AS status, p.api_key_id AS "keyId", p.units,
                     p.stripe_session_id AS "sessionId",
                     (SELECT count(*) FROM api_keys k WHERE k.purchase_id = p.id)::int AS "keysIssued"
                FROM purchases p`,
} as const;

/** Everything the invariants compare, in one repeatable-read snapshot. */
export async function readBooks(client: pg.Client): Promise<Books> {
  await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
  try {
    const read = async <T>(sql: string) => (await client.query(sql)).rows as T[];
    return {
      keys: await read<BookKey>(QUERIES.keys),
      holds: await read<BookHold>(QUERIES.holds),
      usage: await read<BookUsage>(QUERIES.usage),
      jobs: await read<BookJob>(QUERIES.jobs),
      records: await read<BookRecord>(QUERIES.records),
      purchases: await read<BookPurchase>(QUERIES.purchases),
    };
  } finally {
    await client.query('COMMIT');
  }
}
