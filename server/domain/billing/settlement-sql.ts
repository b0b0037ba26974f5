import sql, { join, raw, Sql } from 'sql-template-tag';

// The SQL that settles a unit hold, as fragments taking named values, written once and shared by
// every statement that settles one (a request's capture or release, unit-holds.ts; a video job's
// success, failure or cancel, job-holds.ts), so a change to how holds settle or what a usage event
// records is made in one place.

export type HoldSettlement = 'captured' | 'released';

/** The key's side: a capture keeps the units spent, a release gives them back; both free the slot (if any). */
const KEY_UPDATE: Record<HoldSettlement, Sql> = {
  captured: sql`in_flight = k.in_flight - (CASE WHEN h.counts_in_flight THEN 1 ELSE 0 END), last_used_at = now()`,
  released: sql`remaining_units = k.remaining_units + h.units,
                                   in_flight = k.in_flight - (CASE WHEN h.counts_in_flight THEN 1 ELSE 0 END)`,
};

/** A settled hold's expected cost (a job's) no longer counts against its key's budget. */
const EXPECTED_COST_UPDATE = sql`held_expected_cost = k.held_expected_cost - COALESCE(h.expected_cost, 0)`;

/**
 * The condition of a statement that finds a hold by its id and acts only while it is held. The status is
 * compared as text, which no index serves, so the hold is found by its id alone: planned on statistics
 * that saw no held hold, `status = 'held'` made the (status, lease_until) index read every held hold.
 */
export const STILL_HELD = raw(`status::text = 'held'`);

/**
 * While the idempotency record `recordId` is still its request's (running, that id), locked until
 * the statement commits. A record whose lease ran out is taken over by a retry, which gives it
 * its own id and runs and charges the call: the request it was taken from must then charge nothing,
 * or one key would pay twice (outside audit). The lock orders the two: a takeover that commits
 * first is seen (its new id no longer matches), and one that comes later finds the record settled.
 */
export function recordStillHeld(recordId: string | null): Sql {
  // null: a settlement with no record (one statement text either way: it is prepared, and batched by its text).
  return sql`(${recordId}::uuid IS NULL OR EXISTS (SELECT 1 FROM idempotency_records WHERE id = ${recordId}::uuid AND status = 'running' FOR UPDATE))`;
}

/** Today in UTC: the day a key's provider-cost budget counts. */
export const UTC_TODAY = `(now() AT TIME ZONE 'UTC')::date`;
const TODAY = raw(UTC_TODAY);

/**
 * CTEs `hold` (the hold, settled when it was still held and `also` holds; returns id, api_key_id, units,
 * counts_in_flight, expected_cost, surface), `metering` (what the providers reported and what it cost: one jsonb value,
 * billing/provider-cost.ts `meteringJson`, or null; or a SQL expression of it, which may read `hold`) and `key` (its key's balance and slot, the expected
 * cost of its held jobs, and its provider cost of the UTC day, which the metering's cost adds to). `holdId` is a SQL expression.
 */
export function settleHoldCtes(settlement: HoldSettlement, holdId: Sql, metering: string | Sql | null = null, also: Sql = sql`true`): Sql {
  const doc = metering instanceof Sql ? metering : sql`${metering}::jsonb`;
  return sql`hold AS (
             UPDATE unit_holds SET status = ${raw(`'${settlement}'`)}, settled_at = now()
              WHERE id = ${holdId} AND ${STILL_HELD} AND ${also}
             RETURNING id, api_key_id, units, counts_in_flight, expected_cost, surface
           ), metering AS (
             SELECT ${doc} AS doc
           ), key AS (
             UPDATE api_keys k SET ${KEY_UPDATE[settlement]}, ${EXPECTED_COST_UPDATE},
                    cost_today = (CASE WHEN k.cost_day = ${TODAY} THEN k.cost_today ELSE 0 END)
                                 + COALESCE((SELECT (doc->>'provider_cost')::numeric FROM metering), 0),
                    cost_day = ${TODAY}
               FROM hold h WHERE k.id = h.api_key_id
             RETURNING k.id
           )`;
}

const USAGE_EVENT_COLUMNS = [
  'id',
  'api_key_id',
  'package_version_id',
  'operation',
  'engine',
  'outcome',
  'units',
  'error_code',
  'request_id',
  'hold_id',
  'job_id',
  'input_upload_id',
  'duration_ms',
  'engines_tried',
  'surface',
] as const;

export type UsageEventColumn = (typeof USAGE_EVENT_COLUMNS)[number];

/** The provider's side of a usage event, read from the `metering` CTE's jsonb. Column -> SQL type. */
const METERING_COLUMNS = {
  input_tokens: 'int',
  output_tokens: 'int',
  cached_input_tokens: 'int',
  characters: 'int',
  audio_seconds: 'numeric',
  images: 'int',
  image_size: 'text',
  video_seconds: 'numeric',
  provider_cost: 'numeric',
} as const;

const INSERTED_COLUMNS = raw([...USAGE_EVENT_COLUMNS, ...Object.keys(METERING_COLUMNS), 'unpriced', 'usage_estimated'].join(', '));
const METERED_VALUES = raw(
  [
    ...Object.entries(METERING_COLUMNS).map(([column, type]) => `(m.doc->>'${column}')::${type}`),
    `COALESCE((m.doc->>'unpriced')::boolean, false)`,
    `COALESCE((m.doc->>'usage_estimated')::boolean, false)`,
  ].join(', '),
);

/**
 * CTE `usage`: one usage event per row of `from` (e.g. `hold`) where `where` holds, each column
 * given as a SQL expression (a named value, or a column of `from`), and the provider's usage and
 * cost from `metering`: settleHoldCtes' CTE, or a per-row source whose column `doc` is the jsonb
 * (the sweeper's, each hold's own). A new column is added to USAGE_EVENT_COLUMNS and to each
 * caller's values.
 */
export function usageEventCte(
  values: Record<UsageEventColumn, Sql>,
  from: Sql,
  where: Sql = sql`true`,
  metering: Sql = sql`metering m`,
): Sql {
  return sql`usage AS (
             INSERT INTO usage_events (${INSERTED_COLUMNS})
             SELECT ${join(
               USAGE_EVENT_COLUMNS.map((column) => values[column]),
               ', ',
             )}, ${METERED_VALUES}
               FROM ${from}, ${metering}
              WHERE ${where}
             RETURNING id
           )`;
}
