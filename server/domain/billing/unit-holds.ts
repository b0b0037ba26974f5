import { randomUUID } from 'node:crypto';
import type { SqlDb } from '../../db/client';
import sql from 'sql-template-tag';
import { settleHoldCtes, usageEventCte } from './settlement-sql';
import { ApiError } from '../errors';
import { budgetRefusal } from './budget-refusal';
import { HOLD_OUTCOME_COLUMNS, unitHoldCtes, type HoldOutcome, type HoldValues } from './hold-sql';
import { prepared } from './sql-statement';

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
  if (remaining < units) {
    // Said as it is: a balance too small for this call is not an empty one.
    return new ApiError('quota_exhausted', {
      ...(remaining > 0 ? { message: `This call needs ${units} units and only ${remaining} remain in the purchased quota.` } : {}),
      details: { required_units: units, remaining_units: remaining },
    });
  }
  return undefined;
}

/** A hold request's values for hold-sql.ts, under a new hold id. */
export function holdValuesOf(request: HoldRequest): HoldValues {
  return { ...request, holdId: randomUUID(), budget: request.budget ?? null, expectedCost: request.expectedCost ?? null };
}

export async function holdUnits(db: SqlDb, request: HoldRequest): Promise<Hold> {
  const hold = holdValuesOf(request);
  for (let attempt = 0; attempt < 2; attempt++) {
    const { rows } = await db.provisional.query<HoldOutcome>(
      prepared('wgs-hold-units', sql`WITH ${unitHoldCtes(hold)} SELECT ${HOLD_OUTCOME_COLUMNS}`),
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
  /** A charged call's error_code: `client_disconnected` when its client left after the first delta (charged in full). */
  note?: string | null;
}

const CAPTURE_HOLD_SQL = `WITH ${settleHoldCtes('captured', '$1::uuid', '$14::jsonb')}, ${usageEventCte(
  {
    id: '$2::uuid',
    api_key_id: 'api_key_id',
    package_version_id: '$3::uuid',
    operation: '$4::text',
    engine: '$5::text',
    outcome: `'succeeded'`,
    units: 'units',
    error_code: '$15::text',
    request_id: '$6::text',
    hold_id: 'id',
    job_id: '$7::text',
    input_upload_id: '$13::text',
    duration_ms: '$8::int',
    engines_tried: 'COALESCE($12::text[], ARRAY[]::text[])',
  },
  'hold',
  '$14::jsonb',
)}, idem AS (
             UPDATE idempotency_records SET status = 'completed', response_status = $10, response_body = $11
              WHERE id = $9::uuid AND EXISTS (SELECT 1 FROM hold)
             RETURNING id
           )
           SELECT (SELECT count(*) FROM hold)::int AS captured,
                  (SELECT count(*) FROM key)::int AS keys, (SELECT count(*) FROM usage)::int AS usage,
                  (SELECT count(*) FROM idem)::int AS idem`;

/**
 * Success: captures the hold, records the usage event and stores the idempotent response,
 * all in one statement. Returns false when the hold was no longer open (the sweeper already
 * returned it), in which case nothing was charged and nothing stored.
 */
export async function captureHold(
  db: SqlDb,
  holdId: string,
  usage: UsageRecord,
  idempotency?: { recordId: string; status: number; body: string },
): Promise<boolean> {
  const { rows } = await db.pool.query<{ captured: number }>({
    name: 'wgs-capture-hold',
    text: CAPTURE_HOLD_SQL,
    values: [
      holdId,
      usage.usageEventId,
      usage.packageVersionId,
      usage.operation,
      usage.engine,
      usage.requestId,
      usage.jobId ?? null,
      usage.durationMs,
      idempotency?.recordId ?? null,
      idempotency?.status ?? null,
      idempotency?.body ?? null,
      usage.enginesTried ?? null,
      usage.inputUploadId ?? null,
      usage.metering ?? null,
      usage.note ?? null,
    ],
  });
  return rows[0]!.captured === 1;
}

// A release frees the key only while the record is still this request's (status running,
// this id): a record taken over by a retry after the lease ran out has another id.
const RELEASE_HOLD_SQL = `WITH ${settleHoldCtes('released', '$1::uuid', '$13::jsonb')}, ${usageEventCte(
  {
    id: '$2::uuid',
    api_key_id: 'api_key_id',
    package_version_id: '$3::uuid',
    operation: '$4::text',
    engine: '$5::text',
    outcome: `'failed'`,
    units: '0',
    error_code: '$6::text',
    request_id: '$7::text',
    hold_id: 'id',
    job_id: '$8::text',
    input_upload_id: '$12::text',
    duration_ms: '$9::int',
    engines_tried: 'COALESCE($11::text[], ARRAY[]::text[])',
  },
  'hold WHERE $2::uuid IS NOT NULL',
  '$13::jsonb',
)}, idem AS (
             DELETE FROM idempotency_records WHERE id = $10::uuid AND status = 'running' RETURNING id
           )
           SELECT (SELECT count(*) FROM hold)::int AS released, (SELECT count(*) FROM key)::int AS keys,
                  (SELECT count(*) FROM usage)::int AS usage, (SELECT count(*) FROM idem)::int AS idem`;

/**
 * Failure: returns the held units, records the failed attempt (0 units) when it reached an
 * engine, and frees the idempotency key, in one statement. Safe to call twice.
 */
export async function releaseHold(
  db: SqlDb,
  holdId: string,
  failure?: UsageRecord & { errorCode: string },
  idempotencyRecordId?: string,
): Promise<void> {
  await db.pool.query({
    name: 'wgs-release-hold',
    text: RELEASE_HOLD_SQL,
    values: [
      holdId,
      failure?.usageEventId ?? null,
      failure?.packageVersionId ?? null,
      failure?.operation ?? null,
      failure?.engine ?? null,
      failure?.errorCode ?? null,
      failure?.requestId ?? null,
      failure?.jobId ?? null,
      failure?.durationMs ?? null,
      idempotencyRecordId ?? null,
      failure?.enginesTried ?? null,
      failure?.inputUploadId ?? null,
      failure?.metering ?? null,
    ],
  });
}
