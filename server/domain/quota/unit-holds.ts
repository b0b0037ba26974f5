import { randomUUID } from 'node:crypto';
import { getPool, getProvisionalPool } from '../../db/client';
import { ApiError } from '../errors';

// Units are reserved before any engine runs, by one conditional UPDATE on the key's row:
// the row lock serialises racing requests, the WHERE clause re-checks the latest balance and
// in-flight count, and a CHECK constraint keeps the balance >= 0 whatever happens. The same
// statement writes the hold, so a crash leaves a hold the sweeper can return.

// The key-side half of settling a hold, shared by every statement that settles one (requests
// here, video jobs in domain/jobs): they follow a `hold` CTE returning api_key_id, units and
// counts_in_flight of the hold they just settled.

/** Capture: the units stay spent; the request's concurrency slot (if it still has one) is freed. */
export const CAPTURED_HOLD_KEY_CTE = `key AS (
             UPDATE api_keys k SET in_flight = k.in_flight - (CASE WHEN h.counts_in_flight THEN 1 ELSE 0 END),
                                   last_used_at = now()
               FROM hold h WHERE k.id = h.api_key_id
             RETURNING k.id
           )`;

/** Release: the units go back to the key and the slot (if any) is freed. */
export const RELEASED_HOLD_KEY_CTE = `key AS (
             UPDATE api_keys k SET remaining_units = k.remaining_units + h.units,
                                   in_flight = k.in_flight - (CASE WHEN h.counts_in_flight THEN 1 ELSE 0 END)
               FROM hold h WHERE k.id = h.api_key_id
             RETURNING k.id
           )`;

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
}

/**
 * The hold as CTEs `current` (the key's row as the statement began), `taken` (the balance
 * after the units were taken, when they were) and `hold`. The SQL expressions for the values
 * are given, so the hold can stand alone or follow an idempotency claim (`gate`).
 */
export function unitHoldCtes(p: {
  apiKeyId: string; units: string; concurrency: string; holdId: string; operation: string;
  requestId: string; leaseSeconds: string; gate?: string;
}): string {
  return `current AS (
               SELECT status, remaining_units, in_flight FROM api_keys WHERE id = ${p.apiKeyId}
             ), taken AS (
               UPDATE api_keys SET remaining_units = remaining_units - ${p.units}, in_flight = in_flight + 1
                WHERE id = ${p.apiKeyId} AND status = 'active' AND in_flight < ${p.concurrency} AND remaining_units >= ${p.units}
                  ${p.gate ? `AND ${p.gate}` : ''}
               RETURNING remaining_units
             ), hold AS (
               INSERT INTO unit_holds (id, api_key_id, units, operation, request_id, lease_until)
               SELECT ${p.holdId}, ${p.apiKeyId}, ${p.units}, ${p.operation}, ${p.requestId}, now() + make_interval(secs => ${p.leaseSeconds}) FROM taken
               RETURNING id
             )`;
}

/** What the statement after unitHoldCtes selects about the hold. */
export const HOLD_OUTCOME_COLUMNS = `(SELECT remaining_units FROM taken) AS remaining,
                    (SELECT status FROM current) AS status,
                    (SELECT remaining_units FROM current) AS current_remaining,
                    (SELECT in_flight FROM current) AS current_in_flight`;

export interface HoldOutcome {
  remaining: number | null;
  status: 'active' | 'revoked' | null;
  current_remaining: number | null;
  current_in_flight: number | null;
}

/**
 * Why a hold was refused, judged on the key's row as the statement began (the limit checked
 * first wins); undefined when that row allowed it, i.e. the row changed meanwhile: try again.
 */
export function holdRefusal(row: HoldOutcome, units: number, concurrency: number): ApiError | undefined {
  if (row.status !== 'active') return new ApiError('invalid_api_key');
  if ((row.current_in_flight ?? 0) >= concurrency) {
    return new ApiError('rate_limited', { message: 'Concurrent request limit reached. Retry later.', retryAfter: 1 });
  }
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

export async function holdUnits(request: HoldRequest): Promise<Hold> {
  const holdId = randomUUID();
  for (let attempt = 0; attempt < 2; attempt++) {
    const { rows } = await getProvisionalPool().query<HoldOutcome>({
      name: 'wgs-hold-units',
      text: `WITH ${unitHoldCtes({ apiKeyId: '$1::uuid', units: '$2::int', concurrency: '$3::int', holdId: '$4::uuid',
        operation: '$5::text', requestId: '$6::text', leaseSeconds: '$7::int' })}
             SELECT ${HOLD_OUTCOME_COLUMNS}`,
      values: [request.apiKeyId, request.units, request.concurrency, holdId, request.operation, request.requestId, request.leaseSeconds],
    });
    const row = rows[0]!;
    if (row.remaining !== null) return { holdId, remainingUnits: row.remaining };
    const refusal = holdRefusal(row, request.units, request.concurrency);
    if (refusal) throw refusal;
  }
  throw new ApiError('rate_limited', { message: 'Concurrent request limit reached. Retry later.', retryAfter: 1 });
}

export interface UsageRecord {
  usageEventId: string;
  packageVersionId: string;
  operation: string;
  engine: string;
  /** Every engine called, in order (fallbacks). */
  enginesTried?: readonly string[];
  requestId: string;
  jobId?: string | null;
  durationMs: number;
}

/**
 * Success: captures the hold, records the usage event and stores the idempotent response,
 * all in one statement. Returns false when the hold was no longer open (the sweeper already
 * returned it), in which case nothing was charged and nothing stored.
 */
export async function captureHold(
  holdId: string,
  usage: UsageRecord,
  idempotency?: { recordId: string; status: number; body: string },
): Promise<boolean> {
  const { rows } = await getPool().query<{ captured: number }>({
    name: 'wgs-capture-hold',
    text: `WITH hold AS (
             UPDATE unit_holds SET status = 'captured', settled_at = now()
              WHERE id = $1 AND status = 'held'
             RETURNING api_key_id, units, counts_in_flight
           ), ${CAPTURED_HOLD_KEY_CTE}, usage AS (
             INSERT INTO usage_events (id, api_key_id, package_version_id, operation, engine, outcome, units,
                                       request_id, hold_id, job_id, duration_ms, engines_tried)
             SELECT $2::uuid, api_key_id, $3::uuid, $4::text, $5::text, 'succeeded', units, $6::text, $1::uuid, $7::text, $8::int,
                    COALESCE($12::text[], ARRAY[]::text[])
               FROM hold
             RETURNING id
           ), idem AS (
             UPDATE idempotency_records SET status = 'completed', response_status = $10, response_body = $11
              WHERE id = $9::uuid AND EXISTS (SELECT 1 FROM hold)
             RETURNING id
           )
           SELECT (SELECT count(*) FROM hold)::int AS captured,
                  (SELECT count(*) FROM key)::int AS keys, (SELECT count(*) FROM usage)::int AS usage,
                  (SELECT count(*) FROM idem)::int AS idem`,
    values: [holdId, usage.usageEventId, usage.packageVersionId, usage.operation, usage.engine, usage.requestId,
      usage.jobId ?? null, usage.durationMs, idempotency?.recordId ?? null, idempotency?.status ?? null, idempotency?.body ?? null,
      usage.enginesTried ?? null],
  });
  return rows[0]!.captured === 1;
}

/**
 * Failure: returns the held units, records the failed attempt (0 units) when it reached an
 * engine, and frees the idempotency key, in one statement. Safe to call twice.
 */
export async function releaseHold(
  holdId: string,
  failure?: UsageRecord & { errorCode: string },
  idempotencyRecordId?: string,
): Promise<void> {
  await getPool().query({
    name: 'wgs-release-hold',
    text: `WITH hold AS (
             UPDATE unit_holds SET status = 'released', settled_at = now()
              WHERE id = $1 AND status = 'held'
             RETURNING api_key_id, units, counts_in_flight
           ), ${RELEASED_HOLD_KEY_CTE}, usage AS (
             INSERT INTO usage_events (id, api_key_id, package_version_id, operation, engine, outcome, units,
                                       error_code, request_id, hold_id, job_id, duration_ms, engines_tried)
             SELECT $2::uuid, api_key_id, $3::uuid, $4::text, $5::text, 'failed', 0, $6::text, $7::text, $1::uuid, $8::text, $9::int,
                    COALESCE($11::text[], ARRAY[]::text[])
               FROM hold WHERE $2::uuid IS NOT NULL
             RETURNING id
           ), idem AS (
             DELETE FROM idempotency_records WHERE id = $10::uuid AND status = 'running' RETURNING id
           )
           SELECT (SELECT count(*) FROM hold)::int AS released, (SELECT count(*) FROM key)::int AS keys,
                  (SELECT count(*) FROM usage)::int AS usage, (SELECT count(*) FROM idem)::int AS idem`,
    values: [holdId, failure?.usageEventId ?? null, failure?.packageVersionId ?? null, failure?.operation ?? null,
      failure?.engine ?? null, failure?.errorCode ?? null, failure?.requestId ?? null, failure?.jobId ?? null,
      failure?.durationMs ?? null, idempotencyRecordId ?? null, failure?.enginesTried ?? null],
  });
}

/**
 * A hold handed to a background job: the request is over, so it stops counting against the
 * concurrency limit, but its units stay reserved (with a longer lease) until the job settles.
 */
export async function detachHoldFromRequest(holdId: string, leaseSeconds: number): Promise<void> {
  await getPool().query({
    name: 'wgs-detach-hold',
    text: `WITH hold AS (
             UPDATE unit_holds SET counts_in_flight = false, lease_until = now() + make_interval(secs => $2)
              WHERE id = $1 AND status = 'held' AND counts_in_flight
             RETURNING api_key_id
           )
           UPDATE api_keys k SET in_flight = k.in_flight - 1 FROM hold h WHERE k.id = h.api_key_id`,
    values: [holdId, leaseSeconds],
  });
}

/** Returns holds whose lease ran out (their request died) to their keys. Safe on many instances at once. */
export async function sweepExpiredHolds(): Promise<number> {
  const { rowCount } = await getPool().query(
    `WITH released AS (
       UPDATE unit_holds SET status = 'released', settled_at = now()
        WHERE id IN (SELECT id FROM unit_holds WHERE status = 'held' AND lease_until < now()
                      ORDER BY lease_until LIMIT 1000 FOR UPDATE SKIP LOCKED)
       RETURNING api_key_id, units, counts_in_flight
     ), per_key AS (
       SELECT api_key_id, sum(units)::int AS units, count(*) FILTER (WHERE counts_in_flight)::int AS slots
         FROM released GROUP BY api_key_id
     )
     UPDATE api_keys k SET remaining_units = k.remaining_units + p.units, in_flight = k.in_flight - p.slots
       FROM per_key p WHERE k.id = p.api_key_id`,
  );
  return rowCount ?? 0;
}
