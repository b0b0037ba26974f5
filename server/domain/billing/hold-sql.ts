import sql, { raw, type Sql } from 'sql-template-tag';
import { UTC_TODAY } from './settlement-sql';

// The unit hold as SQL fragments taking named values: one conditional UPDATE of the key's row takes
// the units and a concurrency slot (the row lock serialises racing requests, the WHERE re-checks
// the latest balance, slot count and budget, all columns of that row) and writes the hold, so a crash leaves a hold the
// sweeper can return. Shared by the hold alone (unit-holds.ts) and the statements that claim a key
// and hold in one (reserve-statements.ts).

export interface HoldValues {
  apiKeyId: string;
  holdId: string;
  units: number;
  operation: string;
  requestId: string;
  /** The package's concurrent-request limit. */
  concurrency: number;
  leaseSeconds: number;
  /**
   * The key's daily provider-cost budget (a decimal string; null: none): the day's cost judged on the
   * locked row, so exact across instances, plus the expected cost of its queued or running jobs (kept on that row).
   */
  budget: string | null;
  /** This hold's expected provider cost (a decimal string; null: none known). */
  expectedCost: string | null;
  /** The engines the request may call, in order (none: it calls none): what the sweeper's usage event names should it die. */
  engines?: readonly string[];
  /** The surface the call came through (`v1`, `openai`): its usage event names it. */
  surface: string;
}

const TODAY = raw(UTC_TODAY);

/** The key's provider cost counted by its budget: the UTC day's, and the expected cost of its held jobs. */
const BUDGETED_COST = sql`(CASE WHEN cost_day = ${TODAY} THEN cost_today ELSE 0 END + held_expected_cost)`;

/**
 * CTEs `current` (the key's row as the statement began), `taken` (the balance after the units were
 * taken, when they were) and `hold`. Nothing is taken unless `gate` holds. The budget is judged on
 * the key's locked row, whose held_expected_cost the same UPDATE adds this hold's expected cost to
 * (and its settling takes away): a request that waited on the lock sees the jobs held meanwhile.
 * The hold names the idempotency record `recordId` its request claimed (null: none): should a retry
 * take that record over (its request died), the hold is known to be dead (sweep-expired-holds.ts returnTakenOverHolds).
 */
export function unitHoldCtes(hold: HoldValues, recordId: string | null, gate: Sql = sql`true`): Sql {
  const { apiKeyId, units, budget } = hold;
  return sql`current AS (
               ${currentKeyRow(apiKeyId)}
             ), taken AS (
               UPDATE api_keys SET remaining_units = remaining_units - ${units}::int, in_flight = in_flight + 1,
                      held_expected_cost = held_expected_cost + COALESCE(${hold.expectedCost}::numeric, 0)
                WHERE id = ${apiKeyId}::uuid AND status = 'active' AND in_flight < ${hold.concurrency}::int
                  AND remaining_units >= ${units}::int
                  AND (${budget}::numeric IS NULL OR ${BUDGETED_COST} < ${budget}::numeric)
                  AND ${gate}
               RETURNING remaining_units
             ), hold AS (
               INSERT INTO unit_holds (id, api_key_id, units, operation, request_id, lease_until, expected_cost, engines, surface, record_id)
               SELECT ${hold.holdId}::uuid, ${apiKeyId}::uuid, ${units}::int, ${hold.operation}::text, ${hold.requestId}::text,
                      now() + make_interval(secs => ${hold.leaseSeconds}::int), ${hold.expectedCost}::numeric,
                      ${hold.engines ?? []}::text[], ${hold.surface}::text, ${recordId}::uuid FROM taken
               RETURNING id
             )`;
}

/** The body of a CTE `current`: the key's row as the statement began, what a refusal is judged on (holdRefusal). */
export function currentKeyRow(apiKeyId: string): Sql {
  return sql`SELECT status, remaining_units, in_flight, ${BUDGETED_COST} AS cost_today FROM api_keys WHERE id = ${apiKeyId}::uuid`;
}

/** What a statement with a CTE `current` selects of it (HoldOutcome but `remaining`). */
export const CURRENT_KEY_COLUMNS = sql`(SELECT status FROM current) AS status,
                    (SELECT remaining_units FROM current) AS current_remaining,
                    (SELECT in_flight FROM current) AS current_in_flight,
                    (SELECT cost_today FROM current) AS current_cost_today`;

/** What a statement with unitHoldCtes selects about the hold. */
export const HOLD_OUTCOME_COLUMNS = sql`(SELECT remaining_units FROM taken) AS remaining,
                    ${CURRENT_KEY_COLUMNS}`;

export interface HoldOutcome {
  remaining: number | null;
  status: 'active' | 'revoked' | null;
  current_remaining: number | null;
  current_in_flight: number | null;
  /** numeric, as text */
  current_cost_today: string | null;
}
