import type { PgBoss } from 'pg-boss';
import type pg from 'pg';
import { getConfig } from '../../config';
import { isStopping } from '../../lifecycle/shutdown-hooks';

/** pg-boss's database adapter shape (its `IDatabase`, not exported by name). */
type QueueDb = NonNullable<NonNullable<Parameters<PgBoss['send']>[2]>['db']>;

// The video job queue: pg-boss on the product's own PostgreSQL (schema `pgboss`, created and
// migrated by `start()`). A queue entry only carries the job id; the `jobs` row is the truth.
//
// Crash safety comes from the queue's settings: a worker heartbeats every job it runs; when
// the heartbeats stop (the process died) the supervisor of any running instance fails the
// attempt and it is retried (bounded by retryLimit). A job whose retries are used up is copied
// to the dead-letter queue, whose handler marks the job failed and returns its units.

export const VIDEO_QUEUE = 'videos-generate';
export const VIDEO_DEAD_LETTER_QUEUE = 'videos-generate-dead';

export interface VideoJobMessage {
  jobId: string;
}

export function queueSettings() {
  const config = getConfig();
  return {
    retryLimit: config.JOB_RETRY_LIMIT,
    retryDelay: config.JOB_RETRY_DELAY_SECONDS,
    expireInSeconds: config.JOB_EXPIRE_SECONDS,
    heartbeatSeconds: config.JOB_HEARTBEAT_SECONDS,
  };
}

/**
 * A pg-boss instance on DATABASE_URL. `supervise` only where workers run (it expires and retries jobs).
 * pg-boss is loaded here, on the first queue a process starts: most processes never start one.
 */
export async function createBoss(options: { supervise: boolean; max?: number }): Promise<PgBoss> {
  const config = getConfig();
  if (!config.DATABASE_URL) throw new Error('DATABASE_URL is not set: the job queue needs the database.');
  const { PgBoss } = await import('pg-boss');
  const boss = new PgBoss({
    connectionString: config.DATABASE_URL,
    max: options.max ?? 4,
    application_name: 'wgs-jobs',
    supervise: options.supervise,
    schedule: false,
    superviseIntervalSeconds: config.JOB_SUPERVISE_INTERVAL_SECONDS,
    monitorIntervalSeconds: config.JOB_SUPERVISE_INTERVAL_SECONDS,
  });
  boss.on('error', reportQueueError);
  return boss;
}

/** PostgreSQL ended the connection: admin_shutdown, crash_shutdown, cannot_connect_now. */
const ENDED_BY_SERVER = /^57P0[1-3]$/;

/** pg-boss's timers still querying once its connections were closed by the stop. */
const CLOSED_BY_STOP = /^Database connection is not opened$/;

/**
 * Connection errors are retried by pg-boss itself; logged instead of crashing the process. One the
 * database's shutdown causes is expected while this process stops: Ctrl-C signals the embedded
 * PostgreSQL too, which may end the connections before this process has seen its own signal; so
 * is one of pg-boss's own timers finding its connections closed by the stop.
 */
function reportQueueError(error: Error): void {
  const log = () => console.error('[jobs] queue error:', error.message);
  const expectedAtStop = ENDED_BY_SERVER.test(String((error as { code?: unknown }).code)) || CLOSED_BY_STOP.test(error.message);
  if (!expectedAtStop) return log();
  setTimeout(() => {
    if (!isStopping()) log();
  }, 1_000).unref();
}

/** Creates both queues, or brings their retry/expiry/heartbeat settings up to this process's config. */
export async function ensureQueues(boss: PgBoss): Promise<void> {
  if (!(await boss.getQueue(VIDEO_DEAD_LETTER_QUEUE))) {
    await boss.createQueue(VIDEO_DEAD_LETTER_QUEUE, { retryLimit: 5, retryDelay: 5, expireInSeconds: 300 }).catch(ignoreExists);
  }
  const settings = { ...queueSettings(), deadLetter: VIDEO_DEAD_LETTER_QUEUE };
  const existing = await boss.getQueue(VIDEO_QUEUE);
  if (!existing) {
    await boss.createQueue(VIDEO_QUEUE, settings).catch(ignoreExists);
  } else if (
    existing.retryLimit !== settings.retryLimit ||
    existing.retryDelay !== settings.retryDelay ||
    existing.expireInSeconds !== settings.expireInSeconds ||
    existing.heartbeatSeconds !== settings.heartbeatSeconds ||
    existing.deadLetter !== settings.deadLetter
  ) {
    await boss.updateQueue(VIDEO_QUEUE, settings);
  }
}

function ignoreExists(error: unknown): void {
  // Another instance created it between our check and our create.
  if (!/already exists/i.test(String((error as Error)?.message))) throw error;
}

let sending: Promise<PgBoss> | undefined;

/** The sending side of the queue (API processes): started once per process, no supervisor. */
export function getJobQueue(): Promise<PgBoss> {
  sending ??= (async () => {
    const boss = await createBoss({ supervise: false, max: 4 });
    await boss.start();
    await ensureQueues(boss);
    return boss;
  })().catch((error: unknown) => {
    sending = undefined;
    throw error;
  });
  return sending;
}

export async function stopJobQueue(): Promise<void> {
  const pending = sending;
  sending = undefined;
  if (pending) await (await pending.catch(() => undefined))?.stop({ graceful: false, close: true });
}

/** pg-boss statements on our own transaction's client, so the queue entry commits with the job row. */
export function onClient(client: pg.PoolClient): QueueDb {
  return { executeSql: (text: string, values?: unknown[]) => client.query(text, values) };
}

/** Enqueues a job inside the caller's transaction. */
export async function enqueueVideoJob(boss: PgBoss, client: pg.PoolClient, jobId: string): Promise<void> {
  const message: VideoJobMessage = { jobId };
  const id = await boss.send(VIDEO_QUEUE, message, { ...queueSettings(), db: onClient(client) });
  if (!id) throw new Error(`the queue refused job ${jobId}`);
}
