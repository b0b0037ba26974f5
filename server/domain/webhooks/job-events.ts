import sql from 'sql-template-tag';
import { prepared } from '../../db/named-statement';
import { JOB_EVENT_TYPES, type JobEvent, type JobEventType } from '../../contract/webhooks';
import type { SqlDb } from '../../db/client';

// A job's end becomes a webhook delivery in the same statement that ends the job, so an event is
// never lost between the two; the queue message that sends it follows (webhook-queue.ts), and a
// background sweep sends again whatever is overdue.

export { JOB_EVENT_TYPES, type JobEventType };

const EVENT_OF: Record<'succeeded' | 'failed' | 'cancelled', JobEventType> = {
  succeeded: 'job.succeeded',
  failed: 'job.failed',
  cancelled: 'job.cancelled',
};

/**
 * CTE `event`: one delivery per ended job of `from` (a CTE or table expression with `id` and
 * `api_key_id`) whose key has an enabled webhook. Its `webhook-id` is the row's id.
 */
export function jobEventCte(from: string, status: 'succeeded' | 'failed' | 'cancelled'): string {
  return `event AS (
             INSERT INTO webhook_deliveries (id, api_key_id, job_id, event_type, next_attempt_at)
             SELECT 'msg_' || replace(gen_random_uuid()::text, '-', ''), k.id, e.id, '${EVENT_OF[status]}', now()
               FROM ${from} e JOIN api_keys k ON k.id = e.api_key_id
              WHERE k.webhook_url IS NOT NULL AND k.webhook_disabled_at IS NULL
             ON CONFLICT (job_id, event_type) DO NOTHING
             RETURNING id
           )`;
}

/** The body every attempt of a delivery sends: built from the row, so each attempt's is the same. */
export function jobEventBody(delivery: { event_type: string; created_at: Date; job_id: string }): string {
  const event: JobEvent = {
    type: delivery.event_type as JobEventType,
    timestamp: delivery.created_at.toISOString(),
    data: { job_id: delivery.job_id, status: delivery.event_type.slice('job.'.length) as JobEvent['data']['status'] },
  };
  return JSON.stringify(event);
}

/** Pending deliveries overdue by 30 s: their queue message was lost (e.g. the process died right after the job ended). */
export async function overdueDeliveries(db: SqlDb, limit = 200): Promise<string[]> {
  const { rows } = await db.pool.query<{ id: string }>(
    prepared(
      'wgs-webhook-overdue',
      sql`SELECT id FROM webhook_deliveries
            WHERE status = 'pending' AND next_attempt_at < now() - interval '30 seconds'
              AND (claimed_until IS NULL OR claimed_until < now())
            ORDER BY next_attempt_at LIMIT ${limit}`,
    ),
  );
  return rows.map((row) => row.id);
}
