import type { PgBoss } from 'pg-boss';
import { getJobQueue } from '../queue/job-queue';

// Job webhook attempts travel on pg-boss, like video jobs: a message carries only the delivery
// id (the `webhook_deliveries` row is the truth) and is sent with `startAfter` for a retry, so a
// scheduled attempt survives a restart of every process.

export const WEBHOOK_QUEUE = 'job-webhooks';

export interface WebhookMessage {
  deliveryId: string;
  /**
   * A retry's `next_attempt_at` (its text, exact): a resend since has started another round, and
   * the retry of the round it replaced then finds another time and sends nothing. None: the first
   * attempt, a resend's or the sweep's, any attempt due.
   */
  due?: string;
}

export async function ensureWebhookQueue(boss: PgBoss): Promise<void> {
  if (await boss.getQueue(WEBHOOK_QUEUE)) return;
  await boss.createQueue(WEBHOOK_QUEUE, { retryLimit: 5, retryDelay: 5, expireInSeconds: 120 }).catch((error: unknown) => {
    if (!/already exists/i.test(String((error as Error)?.message))) throw error;
  });
}

/** Queues an attempt of each delivery, `afterSeconds` from now (to the millisecond: the queue takes fractions), for the round `due` names. */
export async function queueDeliveries(ids: readonly string[], afterSeconds = 0, due?: string): Promise<void> {
  if (ids.length === 0) return;
  const boss = await getJobQueue();
  await ensureWebhookQueue(boss);
  for (const deliveryId of ids) {
    const message: WebhookMessage = due === undefined ? { deliveryId } : { deliveryId, due };
    const startAfter = Math.max(0, Math.round(afterSeconds * 1000) / 1000);
    await boss.send(WEBHOOK_QUEUE, message, { startAfter, retryLimit: 5, retryDelay: 5 });
  }
}

/**
 * After a job's end committed: queues its deliveries. A failure is only logged: the rows are
 * pending, and the background sweep queues what is overdue.
 */
export function announceDeliveries(ids: readonly string[] | null | undefined): Promise<void> {
  if (!ids?.length) return Promise.resolve();
  return queueDeliveries(ids).catch((error: unknown) => {
    console.error(`[webhooks] queueing ${ids.length} deliveries failed (the sweep retries): ${(error as Error).message}`);
  });
}
