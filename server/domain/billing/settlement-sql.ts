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

/** Today in UTC: the day a key's provider-cost budget counts. */
export const UTC_TODAY = `(now() AT TIME ZONE 'UTC')::date`;

/**
 * CTEs `hold` (the hold, settled when it was still held; returns id, api_key_id, units,
 * counts_in_flight) and `key` (its key's balance and slot, and its provider cost of the UTC day,
 * which `metering` (a SQL jsonb expression, see usageEventCte) adds to). `holdId` is a SQL expression.
 */
export function settleHoldCtes(settlement: HoldSettlement, holdId: string, metering = 'NULL::jsonb'): string {
  return `hold AS (
             UPDATE unit_holds SET status = '${settlement}', settled_at = now()
              WHERE id = ${holdId} AND status = 'held'
             RETURNING id, api_key_id, units, counts_in_flight
           ), key AS (
             UPDATE api_keys k SET ${KEY_UPDATE[settlement]},
                    cost_today = (CASE WHEN k.cost_day = ${UTC_TODAY} THEN k.cost_today ELSE 0 END)
                                 + COALESCE((${metering}->>'provider_cost')::numeric, 0),
                    cost_day = ${UTC_TODAY}
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
 * The provider's side of a usage event, read from one jsonb value (server/domain/billing/metering.ts
 * `meteringJson`): what the provider reported and what it cost. Column -> SQL type.
 */
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

/**
 * CTE `usage`: one usage event per row of `from` (e.g. `hold`, with a WHERE), each column given
 * as a SQL expression, and the provider's usage and cost from `metering` (a SQL jsonb
 * expression; NULL records none). A new column is added to USAGE_EVENT_COLUMNS and to each
 * caller's values.
 */
export function usageEventCte(values: Record<UsageEventColumn, string>, from: string, metering = 'NULL::jsonb'): string {
  const metered = Object.entries(METERING_COLUMNS).map(([column, type]) => `(${metering}->>'${column}')::${type}`);
  return `usage AS (
             INSERT INTO usage_events (${USAGE_EVENT_COLUMNS.join(', ')}, ${Object.keys(METERING_COLUMNS).join(', ')}, unpriced, usage_estimated)
             SELECT ${USAGE_EVENT_COLUMNS.map((column) => values[column]).join(', ')}, ${metered.join(', ')},
                    COALESCE((${metering}->>'unpriced')::boolean, false), COALESCE((${metering}->>'usage_estimated')::boolean, false)
               FROM ${from}
             RETURNING id
           )`;
}
