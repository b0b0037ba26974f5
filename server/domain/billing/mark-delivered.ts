import sql from 'sql-template-tag';
import type { SqlDb } from '../../db/client';
import { ApiError } from '../errors';
import { meteringJson, type Metering } from './provider-cost';
import { recordStillHeld, STILL_HELD } from './settlement-sql';
import { prepared } from './sql-statement';

// Output delivered is output paid for (CONTRACT.md §8), even when the process dies: before a
// streamed answer's first delta is written to the client, its hold is marked delivered by one
// durable statement. From then on a request that dies leaves a hold the sweeper captures
// (sweep-expired-holds.ts) instead of returning; a request that lives settles it as before. The
// same statement marks the key's idempotency record delivered, with the answer known so far (the
// first delta, ended as interrupted): a claim never takes that key over, and once its lease ran
// out a retry is given that answer instead of running the call again.

/** Who is answering when the first delta is ready: what the sweeper's usage event records. */
export interface Delivery {
  /** The engine answering. */
  engine: string;
  /** Every engine called for the request so far, in order (fallbacks), the answering one last. */
  enginesTried: readonly string[];
  /** What the call has used by then, as far as it is known (an estimate). */
  metering?: Metering;
}

/** What the key replays if the request never settles: the usage event it names, and the stored answer. */
export interface DeliveredAnswer {
  usageEventId: string;
  recordId: string;
  /** The Generation result of what is known to be delivered (JSON replays). */
  body: string;
  /** The events a streamed replay writes. */
  events: string;
}

/**
 * Marks a held hold delivered, and its idempotency record with the answer a replay gives until the
 * request settles; throws when the hold is no longer held (its lease ran out and the sweeper returned
 * it), so that nothing is written to a client whose units are back.
 */
export async function markDelivered(db: SqlDb, holdId: string, delivery: Delivery, answer: DeliveredAnswer): Promise<void> {
  const { rows } = await db.pool.query<{ marked: number }>(
    prepared(
      'wgs-mark-delivered',
      sql`WITH hold AS (
             UPDATE unit_holds SET delivered_at = now(), delivered_engine = ${delivery.engine}::text,
                    delivered_engines_tried = ${delivery.enginesTried}::text[],
                    delivered_metering = ${meteringJson(delivery.metering)}::jsonb,
                    delivered_usage_event_id = ${answer.usageEventId}::uuid
              WHERE id = ${holdId}::uuid AND ${STILL_HELD} AND ${recordStillHeld(answer.recordId)}
             RETURNING id
           ), idem AS (
             UPDATE idempotency_records SET delivered_at = now(), response_status = 200, response_body = ${answer.body}::text,
                    response_events = ${answer.events}::text
              WHERE id = ${answer.recordId}::uuid AND status = 'running' AND EXISTS (SELECT 1 FROM hold)
             RETURNING id
           )
           SELECT (SELECT count(*) FROM hold)::int AS marked, (SELECT count(*) FROM idem)::int AS records`,
    ),
  );
  if (rows[0]!.marked !== 1) throw new ApiError('provider_unavailable', { retryAfter: 1 });
}
