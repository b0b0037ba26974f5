import type { JobResult, PgBoss } from 'pg-boss';
import { getConfig } from '../config';
import { getSqlDb } from '../db/client';
import { createBoss, ensureQueues, VIDEO_DEAD_LETTER_QUEUE, VIDEO_QUEUE, type VideoJobMessage } from '../domain/queue/job-queue';
import { failExhaustedJob, runVideoJob } from '../domain/jobs/run-video-job';
import { deliverWebhook } from '../domain/webhooks/deliver-webhook';
import { ensureWebhookQueue, WEBHOOK_QUEUE, type WebhookMessage } from '../domain/webhooks/webhook-queue';

// The video job worker (and the job webhooks' sender): pg-boss workers on the shared queues. Any number of these, in any
// number of processes and machines, share it safely: pg-boss hands each attempt to one
// worker (SKIP LOCKED), heartbeats it while it runs, and its supervisor gives the attempt of
// a worker that stopped heartbeating (killed, machine lost) to another worker.

/**
 * Webhook attempts one of the worker's pollers sends at once. Each waits on a customer's endpoint
 * (up to DELIVERY_DEADLINE_MS, 15 s), not on this machine: one by one, a few endpoints that never
 * answer held every other key's webhooks back by 15 s each (webhooks audit).
 */
const WEBHOOK_ATTEMPTS_AT_ONCE = 16;

export interface RunningWorker {
  stop(): Promise<void>;
}

export async function startWorker(options: { concurrency?: number } = {}): Promise<RunningWorker> {
  const config = getConfig();
  const concurrency = options.concurrency ?? config.WORKER_CONCURRENCY;
  const boss: PgBoss = await createBoss({ supervise: true, max: concurrency + 4 });
  await boss.start();
  await ensureQueues(boss);
  const polling = { pollingIntervalSeconds: config.JOB_POLL_INTERVAL_SECONDS };

  await boss.work<VideoJobMessage>(VIDEO_QUEUE, { ...polling, batchSize: 1, localConcurrency: concurrency }, async ([job]) => {
    if (!job) return;
    const outcome = await runVideoJob(getSqlDb(), job.data.jobId, job.signal);
    return { outcome };
  });
  await boss.work<VideoJobMessage>(VIDEO_DEAD_LETTER_QUEUE, { ...polling, batchSize: 1 }, async ([job]) => {
    if (!job) return;
    const failed = await failExhaustedJob(getSqlDb(), job.data.jobId);
    if (failed) console.error(`[jobs] ${job.data.jobId} failed after its last attempt`);
    return { failed };
  });

  await ensureWebhookQueue(boss);
  // A batch's attempts run side by side, each settled on its own (one failing retries only itself).
  const webhookWork = { ...polling, batchSize: WEBHOOK_ATTEMPTS_AT_ONCE, localConcurrency: concurrency, perJobResults: true };
  await boss.work<WebhookMessage>(WEBHOOK_QUEUE, webhookWork, (jobs) =>
    Promise.all(
      jobs.map(async (job): Promise<JobResult> => {
        try {
          return {
            id: job.id,
            status: 'completed',
            output: { outcome: await deliverWebhook(getSqlDb(), job.data.deliveryId, job.data.due) },
          };
        } catch (error) {
          return { id: job.id, status: 'failed', output: { message: error instanceof Error ? error.message : String(error) } };
        }
      }),
    ),
  );

  let stopped = false;
  return {
    async stop() {
      if (stopped) return;
      stopped = true;
      // Graceful: running attempts may finish; what does not is retried by another worker.
      await boss.stop({ graceful: true, close: true, timeout: 20_000 });
    },
  };
}
