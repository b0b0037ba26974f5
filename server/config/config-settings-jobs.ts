import { z } from 'zod';
import { doc } from './config-doc';

// The settings of video jobs, their workers and their webhooks (part of server/config/config-settings.ts).
/** The longest a Node timer waits (2^31 - 1 ms), in whole seconds: a longer interval fires at once. */
const TIMER_MAX_SECONDS = 2_147_483;
/** The queue (pg-boss) refuses an expiry or supervision interval over 24 hours. */
const QUEUE_MAX = { at: 86_400, message: 'must be at most 86400 (24 hours: the job queue refuses more)' };
const positiveInt = (fallback: number, max?: { at: number; message: string }) =>
  z.coerce
    .number()
    .int()
    .positive()
    .max(max?.at ?? Number.MAX_SAFE_INTEGER, max?.message)
    .default(fallback);

export const jobSettings = {
  JOB_HOLD_LEASE_SECONDS: doc(
    positiveInt(7200),
    'Video jobs (pg-boss queue): how long the units of a job stay held when no worker settles it; never less than every attempt the retry settings allow can take, plus 600 s.',
  ),
  JOB_HEARTBEAT_SECONDS: doc(
    z.coerce.number().int().min(10, 'JOB_HEARTBEAT_SECONDS must be at least 10 (pg-boss minimum)').max(TIMER_MAX_SECONDS).default(30),
    'A worker that stops heartbeating this long (it died) loses the job to another worker. pg-boss needs >= 10.',
  ),
  JOB_EXPIRE_SECONDS: doc(
    positiveInt(1800, QUEUE_MAX),
    'Longest one attempt of a job may run before it is retried (at most 86400: 24 hours).',
  ),
  JOB_RETRY_LIMIT: doc(
    z.coerce.number().int().min(0, 'JOB_RETRY_LIMIT must be 0 or more').max(20, 'JOB_RETRY_LIMIT must be at most 20').default(3),
    'Attempts after the first before a job is marked failed.',
  ),
  JOB_RETRY_DELAY_SECONDS: doc(
    z.coerce.number().int().min(0, 'JOB_RETRY_DELAY_SECONDS must be 0 or more').max(QUEUE_MAX.at).default(5),
    'Pause before a failed attempt is retried.',
  ),
  JOB_SUPERVISE_INTERVAL_SECONDS: doc(
    positiveInt(10, QUEUE_MAX),
    "How often the queue's supervisor looks for expired and heartbeat-less jobs (at most 86400: 24 hours).",
  ),
  WEBHOOK_RETRY_SCHEDULE_SECONDS: doc(
    z
      .string()
      .regex(/^\d+(\.\d+)?(,\d+(\.\d+)?)*$/, 'WEBHOOK_RETRY_SCHEDULE_SECONDS must be comma-separated seconds, e.g. 5,300,1800')
      .default('5,300,1800,7200,18000,36000,36000')
      .transform((value) => value.split(',').map(Number)),
    "Seconds between a job webhook's attempts (after the 1st, 2nd, ...), each with +-10% jitter; attempts = entries + 1.",
  ),
  WEBHOOK_ALLOW_PRIVATE_NETWORKS: doc(
    z.enum(['true', 'false'], 'must be true or false').default('false'),
    "Webhook endpoints may be http and on private or loopback addresses, and named outside the public DNS (tests, on-premises); never a cloud metadata or link-local one. A provider's base_url opens its origin to that provider's calls only, never to a webhook.",
  ),
  WEBHOOK_RESENDS_PER_MINUTE: doc(
    positiveInt(10),
    'Resends of webhook deliveries one API key may ask for in any 60 s, from the dashboard and the portal together, counted in the shared rate store (Redis with REDIS_URL, else PostgreSQL); past it a resend is refused with 429 and Retry-After.',
  ),
  JOB_CANCEL_CHECK_SECONDS: doc(
    z.coerce.number().min(0.1, 'JOB_CANCEL_CHECK_SECONDS must be at least 0.1').max(TIMER_MAX_SECONDS).default(2),
    'How often a worker running a video job looks whether the job was cancelled (then it stops the attempt).',
  ),
  JOB_POLL_INTERVAL_SECONDS: doc(
    z.coerce.number().min(0.5, 'JOB_POLL_INTERVAL_SECONDS must be at least 0.5').max(TIMER_MAX_SECONDS).default(1),
    'How often an idle worker polls the queue (pg-boss needs >= 0.5).',
  ),
  WORKER_CONCURRENCY: doc(
    z.coerce.number().int().min(1, 'WORKER_CONCURRENCY must be at least 1').max(64, 'WORKER_CONCURRENCY must be at most 64').default(2),
    'Jobs one worker process runs at once.',
  ),
};
