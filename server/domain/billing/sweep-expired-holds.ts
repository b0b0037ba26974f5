import sql, { raw, type Sql } from 'sql-template-tag';
import type { SqlDb } from '../../db/client';
import { usageEventCte, UTC_TODAY } from './settlement-sql';
import { prepared } from './sql-statement';
import { CURRENT_KEY_COLUMNS, currentKeyRow, type HoldOutcome } from './hold-sql';

// The crash side of a hold: a request that died (its process gone) leaves its hold until its
// lease runs out; the background sweeper then settles it here, on any instance. A hold whose
// output reached the client (a streamed answer marked delivered before its first delta,
// mark-delivered.ts) is captured: output delivered is output paid for. Every other is returned,
// and recorded as a lost call (0 units, `request_lost`) naming the engines its request may have
// called (the hold names them before any is called): which of them it reached died with its
// process, and an engine call is never missing from the books. Only holds still `held` are
// touched, so one the request itself captured or released is never settled twice, and a request
// that settles late finds nothing left to settle.

/** The usage event of a captured interrupted stream says why it was charged without a `done`. */
export const STREAM_INTERRUPTED = 'stream_interrupted';
/** The usage event of a returned hold: its request died before it settled (0 units). */
export const REQUEST_LOST = 'request_lost';

const TODAY = raw(UTC_TODAY);
const CAPTURED = sql`h.status = 'captured'`;

/**
 * Settles the held holds `dead` selects (a query of their ids, locking them, SKIP LOCKED): returns
 * each, or captures it when delivered, with its usage event and its key's balance, slot and cost.
 */
const settleDeadHolds = (
  dead: Sql,
  also: { ctes: Sql; columns: Sql } = { ctes: sql``, columns: sql`` },
) => sql`WITH ${also.ctes}dead AS (${dead}), hold AS (
       UPDATE unit_holds h
          SET status = (CASE WHEN h.delivered_at IS NULL THEN 'released' ELSE 'captured' END)::"HoldStatus", settled_at = now()
         FROM dead e WHERE h.id = e.id
       RETURNING h.id, h.api_key_id, h.units, h.counts_in_flight, h.expected_cost, h.status, h.operation, h.request_id, h.created_at,
                 h.delivered_at, h.delivered_engine, h.delivered_engines_tried, h.delivered_metering, h.delivered_usage_event_id,
                 h.engines, h.surface
     ), per_key AS (
       SELECT api_key_id,
              COALESCE(sum(units) FILTER (WHERE status = 'released'), 0)::int AS returned,
              count(*) FILTER (WHERE counts_in_flight)::int AS slots,
              COALESCE(sum(expected_cost), 0) AS expected,
              COALESCE(sum((delivered_metering->>'provider_cost')::numeric) FILTER (WHERE status = 'captured'), 0) AS cost
         FROM hold GROUP BY api_key_id
     ), key AS (
       UPDATE api_keys k SET remaining_units = k.remaining_units + p.returned, in_flight = k.in_flight - p.slots,
              held_expected_cost = k.held_expected_cost - p.expected,
              cost_today = (CASE WHEN k.cost_day = ${TODAY} THEN k.cost_today ELSE 0 END) + p.cost,
              cost_day = ${TODAY}
         FROM per_key p WHERE k.id = p.api_key_id
       RETURNING k.id
     ), ${usageEventCte(
       {
         // The id the answer its key replays names (mark-delivered.ts).
         id: sql`CASE WHEN ${CAPTURED} THEN COALESCE(h.delivered_usage_event_id, gen_random_uuid()) ELSE gen_random_uuid() END`,
         api_key_id: sql`h.api_key_id`,
         package_version_id: sql`k.package_version_id`,
         operation: sql`h.operation`,
         engine: sql`CASE WHEN ${CAPTURED} THEN h.delivered_engine ELSE h.engines[1] END`,
         outcome: sql`(CASE WHEN ${CAPTURED} THEN 'succeeded' ELSE 'failed' END)::"UsageOutcome"`,
         units: sql`CASE WHEN ${CAPTURED} THEN h.units ELSE 0 END`,
         error_code: sql`CASE WHEN ${CAPTURED} THEN ${STREAM_INTERRUPTED}::text ELSE ${REQUEST_LOST}::text END`,
         request_id: sql`h.request_id`,
         hold_id: sql`h.id`,
         job_id: sql`NULL`,
         input_upload_id: sql`NULL`,
         // How long the call is known to have run: until its first delta (its end was never seen); a lost one, unknown.
         duration_ms: sql`CASE WHEN ${CAPTURED} THEN (extract(epoch FROM h.delivered_at - h.created_at) * 1000)::int ELSE 0 END`,
         engines_tried: sql`CASE WHEN ${CAPTURED} THEN h.delivered_engines_tried ELSE h.engines END`,
         surface: sql`h.surface`,
       },
       sql`hold h JOIN api_keys k ON k.id = h.api_key_id`,
       // A returned hold that names no engine (it calls none) is no call to record.
       sql`${CAPTURED} OR cardinality(h.engines) > 0`,
       sql`LATERAL (SELECT CASE WHEN ${CAPTURED} THEN h.delivered_metering END AS doc) m`,
     )}
     SELECT (SELECT count(*) FROM hold)::int AS settled, (SELECT count(*) FROM key)::int AS keys,
            (SELECT count(*) FROM usage)::int AS usage${also.columns}`;

const SWEEP_SQL = settleDeadHolds(
  sql`SELECT id FROM unit_holds WHERE status = 'held' AND lease_until < now() ORDER BY lease_until LIMIT 1000 FOR UPDATE SKIP LOCKED`,
);

/**
 * Settles holds whose lease ran out (their request died): a delivered one is captured with a
 * usage event `succeeded` / `stream_interrupted`, any other returned to its key with one `failed` /
 * `request_lost` (0 units); both free the key's concurrency slot. Returns how many holds it settled. Safe on many instances at once.
 */
export async function sweepExpiredHolds(db: SqlDb): Promise<number> {
  const { rows } = await db.pool.query<{ settled: number }>(prepared('wgs-sweep-expired-holds', SWEEP_SQL));
  return rows[0]!.settled;
}

/**
 * The held holds of `apiKeyId` whose request's idempotency record is gone: a retry took the record
 * over after its lease ran out (its request died, or can no longer charge: settlement-sql.ts
 * recordStillHeld), so the hold can never be captured, and would otherwise keep its units and slot
 * until its own lease ran out. Only a hold that still counts in flight and delivered nothing (a
 * delivered answer's record is never taken over; a job past its request is on its own lease).
 */
const takenOverHolds = (apiKeyId: string) =>
  sql`unit_holds h WHERE h.api_key_id = ${apiKeyId}::uuid AND h.status = 'held' AND h.counts_in_flight AND h.delivered_at IS NULL
        AND h.record_id IS NOT NULL AND NOT EXISTS (SELECT 1 FROM idempotency_records r WHERE r.id = h.record_id)`;

/** The key's row as the CTE `current` read it, as a refused hold's HoldOutcome (nothing taken). */
const KEY_ROW_COLUMNS = sql`NULL::int AS remaining, ${CURRENT_KEY_COLUMNS}`;

/**
 * Returns at once, as the sweeper returns a hold, the key's holds whose records were taken over
 * (takenOverHolds). Returns how many, and the key's row before that. Read first without a lock
 * (a refusal of a key at its limit usually finds none: one read, no write); when there are some,
 * the key's row is locked before they are (`EXISTS (SELECT 1 FROM current)` is evaluated before
 * their scan), so a return racing this one has committed by then: its holds are no longer held,
 * and the row is the one after it.
 */
export async function returnTakenOverHolds(db: SqlDb, apiKeyId: string): Promise<{ settled: number; key: HoldOutcome }> {
  const found = await db.pool.query<{ dead: boolean } & HoldOutcome>(
    prepared(
      'wgs-find-taken-over-holds',
      sql`WITH current AS (${currentKeyRow(apiKeyId)})
          SELECT EXISTS (SELECT 1 FROM ${takenOverHolds(apiKeyId)}) AS dead, ${KEY_ROW_COLUMNS}`,
    ),
  );
  const { dead, ...seen } = found.rows[0]!;
  if (!dead) return { settled: 0, key: seen };
  const { rows } = await db.pool.query<{ settled: number } & HoldOutcome>(
    prepared(
      'wgs-settle-taken-over-holds',
      settleDeadHolds(sql`SELECT h.id FROM ${takenOverHolds(apiKeyId)} AND EXISTS (SELECT 1 FROM current) FOR UPDATE OF h SKIP LOCKED`, {
        ctes: sql`current AS (${currentKeyRow(apiKeyId)} FOR UPDATE), `,
        columns: sql`, ${KEY_ROW_COLUMNS}`,
      }),
    ),
  );
  const { settled, ...key } = rows[0]!;
  return { settled, key };
}
