// The SQL that settles a unit hold, written once and shared by every statement that settles
// one (a request's capture or release here, a video job's success or failure in domain/jobs),
// so a change to how holds settle or what a usage event records is made in one place.

export type HoldSettlement = 'captured' | 'released';

/** The key's side: a capture keeps the units spent, a release gives them back; both free the slot (if any). */
const KEY_UPDATE: Record<HoldSettlement, string> = {
  captured: `in_flight = k.in_flight - (CASE WHEN h.counts_in_flight THEN 1 ELSE 0 END), last_used_at = now()`,
  released: `remaining_units = k.remaining_units + h.units,
                                   in_flight = k.in_flight - (CASE WHEN h.counts_in_flight THEN 1 ELSE 0 END)`,
};

/**
 * CTEs `hold` (the hold, settled when it was still held; returns id, api_key_id, units,
 * counts_in_flight) and `key` (its key's balance and slot). `holdId` is a SQL expression.
 */
export function settleHoldCtes(settlement: HoldSettlement, holdId: string): string {
  return `hold AS (
             UPDATE unit_holds SET status = '${settlement}', settled_at = now()
              WHERE id = ${holdId} AND status = 'held'
             RETURNING id, api_key_id, units, counts_in_flight
           ), key AS (
             UPDATE api_keys k SET ${KEY_UPDATE[settlement]}
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
] as const;

export type UsageEventColumn = (typeof USAGE_EVENT_COLUMNS)[number];

/**
 * CTE `usage`: one usage event per row of `from` (e.g. `hold`, with a WHERE), each column given
 * as a SQL expression. A new column is added to USAGE_EVENT_COLUMNS and to each caller's values.
 */
export function usageEventCte(values: Record<UsageEventColumn, string>, from: string): string {
  return `usage AS (
             INSERT INTO usage_events (${USAGE_EVENT_COLUMNS.join(', ')})
             SELECT ${USAGE_EVENT_COLUMNS.map((column) => values[column]).join(', ')}
               FROM ${from}
             RETURNING id
           )`;
}
