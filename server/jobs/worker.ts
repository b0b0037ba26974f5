import type { PgBoss } from 'pg-boss';
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
  await boss.work<WebhookMessage>(WEBHOOK_QUEUE, { ...polling, batchSize: 1, localConcurrency: concurrency }, async ([job]) => {
    if (!job) return;
    return { outcome: await deliverWebhook(getSqlDb(), job.data.deliveryId, job.data.due) };
  });

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
