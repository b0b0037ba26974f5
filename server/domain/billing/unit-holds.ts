import { randomUUID } from 'node:crypto';
import type { QueryConfig } from 'pg';
import type { SqlDb } from '../../db/client';
import sql, { type Sql } from 'sql-template-tag';
import { recordStillHeld, settleHoldCtes, usageEventCte, type UsageEventColumn } from './settlement-sql';
import { ApiError, ERROR_CATALOG } from '../errors';
import { budgetRefusal } from './budget-refusal';
import { CAPTURE_HOLD, writeBatched } from './batched-writes';
import { HOLD_OUTCOME_COLUMNS, unitHoldCtes, type HoldOutcome, type HoldValues } from './hold-sql';
import { prepared } from './sql-statement';
import type { SurfaceName } from '../../contract/values';

// Units are reserved before any engine runs, by one conditional UPDATE on the key's row
// (hold-sql.ts); a CHECK constraint keeps the balance >= 0 whatever happens. The same statement
// writes the hold, so a crash leaves a hold the sweeper can return.

export interface Hold {
  holdId: string;
  /** The key's balance right after these units were taken. */
  remainingUnits: number;
}

export interface HoldRequest {
  apiKeyId: string;
  units: number;
  operation: string;
  requestId: string;
  /** The package's concurrent-request limit. */
  concurrency: number;
  leaseSeconds: number;
  /** The package's max_provider_cost_per_day (a decimal string); null: no budget. */
  budget?: string | null;
  /** A job's expected provider cost (a decimal string), counted by the budget while its units are held. */
  expectedCost?: string | null;
  /** The engines the request may call, in order (none: a hold that calls no engine). */
  engines?: readonly string[];
  /** The surface the call came through; `v1` when omitted. */
  surface?: SurfaceName;
}

/**
 * Why a hold was refused, judged on the key's row as the statement began (the limit checked
 * first wins); undefined when that row allowed it, i.e. the row changed meanwhile: try again.
 */
export function holdRefusal(row: HoldOutcome, units: number, concurrency: number, budget?: string | null): ApiError | undefined {
  if (row.status !== 'active') return new ApiError('invalid_api_key');
  if ((row.current_in_flight ?? 0) >= concurrency) {
    return new ApiError('rate_limited', { message: 'Concurrent request limit reached. Retry later.', retryAfter: 1 });
  }
  if (budget != null && Number(row.current_cost_today ?? 0) >= Number(budget)) return budgetRefusal();
  const remaining = row.current_remaining ?? 0;
  if (remaining < units) return quotaRefusal(units, remaining, row.current_in_flight ?? 0);
  return undefined;
}

/**
 * Said as it is: a balance too small for this call is not an empty one, and units held by calls
 * still in flight come back should those fail (a 402 is final for this request, not for the key).
 */
function quotaRefusal(units: number, remaining: number, inFlight: number): ApiError {
  const details = { required_units: units, remaining_units: remaining };
  if (remaining === 0 && inFlight === 0) return new ApiError('quota_exhausted', { details }); // the catalog's message
  const balance =
    remaining > 0
      ? `This call needs ${units} units and only ${remaining} remain in the purchased quota.`
      : ERROR_CATALOG.quota_exhausted.message;
  const held =
    inFlight === 0
      ? ''
      : inFlight === 1
        ? ' A call of this key in flight holds units, returned if it fails.'
        : ` ${inFlight} calls of this key in flight hold units, returned if they fail.`;
  return new ApiError('quota_exhausted', { message: `${balance}${held}`, details });
}

/** A hold request's values for hold-sql.ts, under a new hold id. */
export function holdValuesOf(request: HoldRequest): HoldValues {
  return {
    ...request,
    holdId: randomUUID(),
    budget: request.budget ?? null,
    expectedCost: request.expectedCost ?? null,
    surface: request.surface ?? 'v1',
  };
}

/** Holds units for a request that claimed the idempotency record `recordId` (null: none) before. */
export async function holdUnits(db: SqlDb, request: HoldRequest, recordId: string | null): Promise<Hold> {
  const hold = holdValuesOf(request);
  for (let attempt = 0; attempt < 2; attempt++) {
    const { rows } = await db.provisional.query<HoldOutcome>(
      prepared('wgs-hold-units', sql`WITH ${unitHoldCtes(hold, recordId)} SELECT ${HOLD_OUTCOME_COLUMNS}`),
    );
    const row = rows[0]!;
    if (row.remaining !== null) return { holdId: hold.holdId, remainingUnits: row.remaining };
    const refusal = holdRefusal(row, request.units, request.concurrency, request.budget);
    if (refusal) throw refusal;
  }
  throw new ApiError('rate_limited', { message: 'Concurrent request limit reached. Retry later.', retryAfter: 1 });
}

export interface UsageRecord {
  usageEventId: string;
  packageVersionId: string;
  operation: string;
  engine: string;
  requestId: string;
  jobId?: string | null;
  /** The upload the call consumed, if any. */
  inputUploadId?: string | null;
  durationMs: number;
  /** Every engine called, in order (fallbacks). */
  enginesTried?: readonly string[];
  /** What the providers reported and its cost: billing/provider-cost.ts meteringJson. */
  metering?: string | null;
  /** A charged call's error_code: why a streamed call charged after its first delta ended without `done` (generation/stream-endings.ts). */
  note?: string | null;
}

/** A request's usage event: its named values, and what its outcome sets (units, error code). */
function usageValues(
  usage: Partial<UsageRecord>,
  outcome: { succeeded: boolean; errorCode: string | null },
): Record<UsageEventColumn, Sql> {
  return {
    id: sql`${usage.usageEventId ?? null}::uuid`,
    api_key_id: sql`api_key_id`,
    package_version_id: sql`${usage.packageVersionId ?? null}::uuid`,
    operation: sql`${usage.operation ?? null}::text`,
    engine: sql`${usage.engine ?? null}::text`,
    outcome: outcome.succeeded ? sql`'succeeded'` : sql`'failed'`,
    units: outcome.succeeded ? sql`units` : sql`0`,
    error_code: sql`${outcome.errorCode}::text`,
    request_id: sql`${usage.requestId ?? null}::text`,
    hold_id: sql`id`,
    job_id: sql`${usage.jobId ?? null}::text`,
    input_upload_id: sql`${usage.inputUploadId ?? null}::text`,
    duration_ms: sql`${usage.durationMs ?? null}::int`,
    engines_tried: sql`COALESCE(${usage.enginesTried ?? null}::text[], ARRAY[]::text[])`,
    surface: sql`surface`,
  };
}

const SETTLED_COUNTS = sql`(SELECT count(*) FROM key)::int AS keys, (SELECT count(*) FROM usage)::int AS usage,
                  (SELECT count(*) FROM idem)::int AS idem`;

/**
 * Success: captures the hold, records the usage event and stores the idempotent response,
 * all in one statement (written with the captures of other requests in flight: batched-writes.ts).
 * Returns false when the hold was no longer open (the sweeper already returned it) or the
 * idempotency record is no longer the request's (a retry took it over after the lease ran out, and
 * charges itself), in which case nothing was charged and nothing stored.
 */
export async function captureHold(
  db: SqlDb,
  hold: { holdId: string; apiKeyId: string },
  usage: UsageRecord,
  idempotency?: { recordId: string; status: number; body: string; events?: string },
): Promise<boolean> {
  const statement = captureStatement(hold.holdId, usage, idempotency);
  const row = await writeBatched<{ captured: number }>(db.pool, CAPTURE_HOLD, { apiKeyId: hold.apiKeyId, statement });
  return row.captured === 1;
}

/** The capture of one hold (captureHold), as pg receives it. */
export function captureStatement(
  holdId: string,
  usage: UsageRecord,
  idempotency?: { recordId: string; status: number; body: string; events?: string },
): QueryConfig {
  const values = usageValues(usage, { succeeded: true, errorCode: usage.note ?? null });
  return prepared(
    CAPTURE_HOLD.statementName,
    sql`WITH ${settleHoldCtes('captured', sql`${holdId}::uuid`, usage.metering ?? null, recordStillHeld(idempotency?.recordId ?? null))}, ${usageEventCte(values, sql`hold`)},
           idem AS (
             UPDATE idempotency_records
                SET status = 'completed', response_status = ${idempotency?.status ?? null}::int,
                    response_body = ${idempotency?.body ?? null}::text, response_events = ${idempotency?.events ?? null}::text
              WHERE id = ${idempotency?.recordId ?? null}::uuid AND EXISTS (SELECT 1 FROM hold)
             RETURNING id
           )
           SELECT (SELECT count(*) FROM hold)::int AS captured, ${SETTLED_COUNTS}`,
  );
}

/**
 * Failure: returns the held units, records the failed attempt (0 units) when it reached an
 * engine, and frees the idempotency key, in one statement. Safe to call twice. The key is freed
 * only while its record is still this request's (status running, this id): a record taken over by
 * a retry after the lease ran out has another id.
 */
export async function releaseHold(
  db: SqlDb,
  holdId: string,
  failure?: UsageRecord & { errorCode: string },
  idempotencyRecordId?: string,
): Promise<void> {
  const values = usageValues(failure ?? {}, { succeeded: false, errorCode: failure?.errorCode ?? null });
  const recorded = sql`${failure?.usageEventId ?? null}::uuid IS NOT NULL`;
  await db.pool.query(
    prepared(
      'wgs-release-hold',
      sql`WITH ${settleHoldCtes('released', sql`${holdId}::uuid`, failure?.metering ?? null)}, ${usageEventCte(values, sql`hold`, recorded)},
           idem AS (
             DELETE FROM idempotency_records WHERE id = ${idempotencyRecordId ?? null}::uuid AND status = 'running' RETURNING id
           )
           SELECT (SELECT count(*) FROM hold)::int AS released, ${SETTLED_COUNTS}`,
    ),
  );
}
