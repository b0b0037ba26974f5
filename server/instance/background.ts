import { deleteFinishedOperatorSessions } from '../auth/operator-sessions';
import { deleteForgottenSignInThrottles } from '../auth/sign-in-throttle';
import { getConfig } from '../config';
import { getPool, getPrisma, getSqlDb } from '../db/client';
import { deleteFinishedPortalSessions } from '../domain/portal/portal-session';
import { expireOverduePurchases } from '../domain/sales/expire-purchases';
import { deleteUnmatchedReversals } from '../domain/sales/unmatched-reversals';
import { purgeUnrevealedSecrets } from '../domain/sales/sold-key-secret';
import { deleteExpiredIdempotencyRecords } from '../domain/billing/idempotency-store';
import { failJobsWithoutHold } from '../domain/jobs/job-settlement';
import { sweepExpiredHolds } from '../domain/billing/sweep-expired-holds';
import { overdueDeliveries } from '../domain/webhooks/job-events';
import { queueDeliveries } from '../domain/webhooks/webhook-queue';
import { deleteIdleRateWindows } from '../domain/rate-limit/sliding-window';
import { deleteAbandonedWrites, deleteExpiredOutputs, deleteExpiredUploads } from '../domain/retention/retention';
import { clearClosedUploadKeys, expireStaleUploads } from '../domain/uploads/expire-uploads';

// Housekeeping every instance runs: each task is safe to run on many instances at once
// (conditional updates, SKIP LOCKED), so no leader is needed.

const INTERVAL_MS = 15_000;

export const BACKGROUND_TASKS: Record<string, () => Promise<number>> = {
  'return expired unit holds': () => sweepExpiredHolds(getSqlDb()),
  // After the holds: a video job whose units just came back (no worker ran it in time) says so.
  'fail video jobs whose units were returned': () => failJobsWithoutHold(getSqlDb()),
  'queue job webhooks whose attempt is overdue': async () => {
    const ids = await overdueDeliveries(getSqlDb());
    await queueDeliveries(ids);
    return ids.length;
  },
  'delete expired idempotency records': () => deleteExpiredIdempotencyRecords(getSqlDb()),
  'expire uploads never completed (and delete their bytes)': () => expireStaleUploads(getSqlDb()),
  'delete bytes PUT to upload URLs after their upload was settled': () => clearClosedUploadKeys(getSqlDb()),
  'delete uploads past UPLOAD_RETENTION_HOURS': () => deleteExpiredUploads(getSqlDb(), getConfig().UPLOAD_RETENTION_HOURS),
  'delete outputs past OUTPUT_RETENTION_HOURS': () => deleteExpiredOutputs(getSqlDb(), getConfig().OUTPUT_RETENTION_HOURS),
  'delete the temp files of writes a killed process left (local disk; hourly)': () => deleteAbandonedWrites(),
  'delete dashboard sessions that ended a day ago': deleteFinishedOperatorSessions,
  'delete portal sessions that ended a day ago': () => deleteFinishedPortalSessions(getPrisma()),
  'expire purchases whose Checkout Session expired': () => expireOverduePurchases(getSqlDb()),
  'delete refunds and disputes of payments no purchase names, past 30 days': () => deleteUnmatchedReversals(getSqlDb()),
  'delete sold keys never shown past SOLD_SECRET_RETENTION_HOURS': () =>
    purgeUnrevealedSecrets(getPrisma(), getConfig().SOLD_SECRET_RETENTION_HOURS),
  'delete rate windows whose hits have all left': () => deleteIdleRateWindows(getSqlDb()),
  'delete sign-in throttles whose failures are forgotten': () => deleteForgottenSignInThrottles(getPool()),
};

let timer: NodeJS.Timeout | undefined;

export async function runBackgroundTasksOnce(): Promise<void> {
  for (const [name, task] of Object.entries(BACKGROUND_TASKS)) {
    try {
      await task();
    } catch (error) {
      console.error(`[background] ${name} failed: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
}

export function startBackgroundTasks(): void {
  if (timer) return;
  timer = setInterval(() => void runBackgroundTasksOnce(), INTERVAL_MS);
  timer.unref();
}
