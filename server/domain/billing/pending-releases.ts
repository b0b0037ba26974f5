import type { SqlDb } from '../../db/client';
import { releaseIdempotencyKey } from './idempotency-store';
import { releaseHold, type UsageRecord } from './unit-holds';

// Releases this process could not write (the database was away, e.g. restarting) wait here and
// are written as soon as it answers again: before this process's next claim, by a retry timer,
// and at shutdown. Without this a 503'd request's key stayed locked until its lease ran out.
// Each release names its idempotency record by id, which is the request's lease token (a retry
// that takes an expired key over writes a new id), and its hold by id, so a late release never
// frees a key or returns units that a live request holds.

export interface PendingRelease {
  recordId: string;
  holdId?: string;
  failure?: UsageRecord & { errorCode: string };
}

const MAX_PENDING = 10_000; // beyond this the leases and the hold sweeper still free them
const RETRY_MS = 1_000;
type Queue = { entries: { db: SqlDb; release: PendingRelease }[]; draining?: Promise<void>; timer?: NodeJS.Timeout };
const queue: Queue = { entries: [] };
const pending = queue.entries;

export async function writeRelease(db: SqlDb, release: PendingRelease): Promise<void> {
  if (release.holdId) await releaseHold(db, release.holdId, release.failure, release.recordId);
  else await releaseIdempotencyKey(db, release.recordId);
}

export function queueRelease(db: SqlDb, release: PendingRelease): void {
  if (pending.length < MAX_PENDING) pending.push({ db, release });
  scheduleRetry();
}

export function pendingReleaseCount(): number {
  return pending.length;
}

/** Writes every queued release, oldest first; stops at the first failure and retries later. Never throws. */
export function drainPendingReleases(): Promise<void> {
  if (pending.length === 0) return Promise.resolve();
  queue.draining ??= drain().finally(() => {
    queue.draining = undefined;
  });
  return queue.draining;
}

/**
 * Before a claim: the queued releases, waited for at most a second, so that a retry with a key a
 * failed request left finds it free, while a database still away adds at most that to a request.
 */
export async function drainBeforeClaim(): Promise<void> {
  if (pending.length === 0) return;
  let timer: NodeJS.Timeout | undefined;
  const waited = new Promise<void>((resolve) => (timer = setTimeout(resolve, 1_000)));
  await Promise.race([drainPendingReleases(), waited]);
  clearTimeout(timer);
}

async function drain(): Promise<void> {
  while (pending.length > 0) {
    const next = pending[0]!;
    try {
      await writeRelease(next.db, next.release);
    } catch (error) {
      // A pool closed for good (shutdown, a test's disconnect) will never take it: dropped.
      if (error instanceof Error && /after calling end on the pool/.test(error.message)) pending.length = 0;
      else scheduleRetry();
      return;
    }
    pending.shift();
  }
}

function scheduleRetry(): void {
  if (queue.timer || pending.length === 0) return;
  queue.timer = setTimeout(() => {
    queue.timer = undefined;
    void drainPendingReleases();
  }, RETRY_MS);
  queue.timer.unref();
}
