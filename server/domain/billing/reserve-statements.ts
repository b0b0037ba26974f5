import type { QueryConfig } from 'pg';
import sql, { type Sql } from 'sql-template-tag';
import type { RateWindow } from '../rate-limit/request-rate';
import { CLAIM_OUTCOME_COLUMNS, claimCte, existingCte, type ClaimOutcome, type ClaimValues } from './claim-sql';
import { HOLD_OUTCOME_COLUMNS, unitHoldCtes, type HoldOutcome, type HoldValues } from './hold-sql';
import { prepared } from './sql-statement';

// The statements that reserve a request (CONTRACT.md §3 steps 8 to 10), each one round trip.
//
// With the rate windows in PostgreSQL: the key's live record is read first (as the statement
// began); only when there is none is the minute's point taken (wgs_rate_take), only when the point
// was taken is the key claimed, and only when it was claimed are the units held. So a replay, 409
// or 422 takes no point, a refused point counts nothing and claims nothing, and the common outcomes
// (held, replay, 409, 422, 429, 402) need this one statement. With Redis the point is Redis's and
// the claim and the hold are one statement.

/** CTE `rate`: the minute's point, taken only when `existing` found no live record. */
function ratePointCte(rate: RateWindow): Sql {
  return sql`rate AS (
             SELECT allowed, used, wait_ms FROM wgs_rate_take(${rate.key}::varchar, ${rate.limit}::int, ${rate.windowSeconds}::int)
              WHERE NOT EXISTS (SELECT 1 FROM existing)
           )`;
}

const RATE_COLUMNS = sql`rate.allowed, rate.used, rate.wait_ms`;

export interface RatePointOutcome {
  /** null: no point was taken (the key has a live record). */
  allowed: boolean | null;
  used: number | null;
  /** bigint, as text */
  wait_ms: string | null;
}

const CLAIM_GATE = sql`EXISTS (SELECT 1 FROM claim)`;

/** Existing record, rate point, claim and, for a paid request, hold: PostgreSQL's rate windows. */
export function rateClaimHoldStatement(values: { rate: RateWindow; claim: ClaimValues; hold?: HoldValues }): QueryConfig {
  const { rate, claim, hold } = values;
  const head = sql`WITH ${existingCte(claim.scope)}, ${ratePointCte(rate)}, ${claimCte(claim, sql`(SELECT allowed FROM rate)`)}`;
  const from = sql`FROM (SELECT 1) AS one LEFT JOIN existing e ON true LEFT JOIN rate ON true`;
  if (!hold) return prepared('wgs-reserve-unpaid', sql`${head} SELECT ${CLAIM_OUTCOME_COLUMNS}, ${RATE_COLUMNS} ${from}`);
  return prepared(
    'wgs-reserve-paid',
    sql`${head}, ${unitHoldCtes(hold, claim.recordId, CLAIM_GATE)}
        SELECT ${CLAIM_OUTCOME_COLUMNS}, ${RATE_COLUMNS}, ${HOLD_OUTCOME_COLUMNS} ${from}`,
  );
}

/** A row of rateClaimHoldStatement; the hold's columns only when it holds. */
export type RateClaimHoldRow = ClaimOutcome & RatePointOutcome & HoldOutcome;

/** Claim and hold (the rate point was taken before, by Redis or by a statement that could not claim). */
export function claimAndHoldStatement(values: { claim: ClaimValues; hold: HoldValues }): QueryConfig {
  return prepared(
    'wgs-claim-and-hold',
    sql`WITH ${claimCte(values.claim)}, ${existingCte(values.claim.scope)}, ${unitHoldCtes(values.hold, values.claim.recordId, CLAIM_GATE)}
        SELECT ${CLAIM_OUTCOME_COLUMNS}, ${HOLD_OUTCOME_COLUMNS}
          FROM (SELECT 1) AS one LEFT JOIN existing e ON true`,
  );
}

export type ClaimAndHoldRow = ClaimOutcome & HoldOutcome;
