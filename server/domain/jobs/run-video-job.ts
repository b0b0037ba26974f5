import { randomUUID } from 'node:crypto';
import { getConfig } from '../../config';
import type { SqlDb } from '../../db/client';
import type { MediaResult, VideoTask } from '../../providers/engine';
import { ApiError } from '../errors';
import { REQUEST_LOST } from '../billing/sweep-expired-holds';
import type { JobRow } from '../job-row';
import { meteringJson } from '../billing/provider-cost';
import { readMediaSeconds } from '../../providers/local/media-duration';
import { callEngine, engineFailureOf, type CallEngineOptions, type EngineReport } from '../generation/call-engine';
import { discardOutput, storeOutputObject } from '../retention/retention';
import { loadUploadBytes } from '../uploads/resolve-input-upload';
import { EXHAUSTED_MESSAGE, PROVIDER_FAILURE_MESSAGE, failJob, succeedJob } from './job-settlement';
import { BUDGET_JOB_MESSAGE, jobKeyOverBudget } from './job-budget';
import { findJob, markEngineReached, packageVersionOfKey, startJobAttempt } from './job-store';

// One attempt of a video job, run by a queue worker. Safe to run again for the same job at
// any point (a retry after a crash, or a second worker): a finished job is left alone, and
// the units are settled by statements that only act on a still-held hold.

/** Where a job's video is stored. */
export function jobResultKey(jobId: string): string {
  return `outputs/${jobId}.mp4`; // the job's public id: its URL carries nothing of the key
}

export type AttemptOutcome = 'succeeded' | 'failed' | 'cancelled' | 'already_finished';

/** The reason an attempt's engine call is aborted with when its job was cancelled. */
class JobCancelled extends Error {
  constructor() {
    super('the job was cancelled');
    this.name = 'JobCancelled';
  }
}

/**
 * Aborts the attempt's signal when the job is cancelled (looked at every
 * JOB_CANCEL_CHECK_SECONDS, between the engine's polls of the provider) or the queue's own
 * signal aborts. `stop` ends the watch.
 */
function watchCancellation(db: SqlDb, jobId: string, queueSignal: AbortSignal): { signal: AbortSignal; stop: () => void } {
  const controller = new AbortController();
  const onQueueAbort = () => controller.abort(queueSignal.reason);
  queueSignal.addEventListener('abort', onQueueAbort, { once: true });
  if (queueSignal.aborted) onQueueAbort();
  let checking = false;
  const timer = setInterval(() => {
    if (checking || controller.signal.aborted) return;
    checking = true;
    findJob(db, jobId)
      .then((job) => {
        if (job?.status === 'cancelled') controller.abort(new JobCancelled());
      })
      .catch(() => {}) // a failed look is retried at the next tick
      .finally(() => {
        checking = false;
      });
  }, getConfig().JOB_CANCEL_CHECK_SECONDS * 1000);
  return {
    signal: controller.signal,
    stop: () => {
      clearInterval(timer);
      queueSignal.removeEventListener('abort', onQueueAbort);
    },
  };
}

/** The engines a job may call, in order (jobs from before engine lists have `engine` alone). */
const engineListOf = (job: JobRow): string[] => (job.engines?.length ? job.engines : [job.engine]);

/** A job's engine call: under its own signal; most providers' videos say nothing of their length, so its cost is estimated from the video's own. */
const videoCallOptions = (signal: AbortSignal): CallEngineOptions<MediaResult> => ({
  signal,
  operation: 'videos.generate',
  estimate: async (video) => ({ videoSeconds: await readMediaSeconds(video.bytes, video.mimeType, 'video') }),
});

/**
 * Runs one attempt. Engine failures fail the job (units released); anything unexpected
 * (database, storage) is thrown so the queue retries the attempt.
 */
export async function runVideoJob(db: SqlDb, jobId: string, signal: AbortSignal): Promise<AttemptOutcome> {
  // Over its budget: the job fails before its provider is called, its units returned.
  if (await jobKeyOverBudget(db, jobId)) {
    return (await failJob(db, jobId, { code: 'rate_limited', message: BUDGET_JOB_MESSAGE })) ? 'failed' : 'already_finished';
  }
  const job = await startJobAttempt(db, jobId);
  if (!job) return 'already_finished';
  const started = Date.now();
  const packageVersionId = await packageVersionOfKey(db, job.api_key_id);
  const task: VideoTask = { prompt: job.input.prompt };
  if (job.input.inputUpload) {
    task.inputImage = await loadUploadBytes(job.input.inputUpload.storageKey);
    task.inputMimeType = job.input.inputUpload.mimeType;
  }

  const engines = engineListOf(job);
  const used = (report: EngineReport = { tried: [] }) => ({
    engine: report.answered ?? report.tried.at(-1),
    enginesTried: report.tried,
    metering: meteringJson(report.metering),
  });
  await markEngineReached(db, job);
  const watch = watchCancellation(db, job.id, signal);
  let call;
  try {
    call = await callEngine(db, engines, (engine) => engine.generateVideo(task, watch.signal), videoCallOptions(watch.signal));
  } catch (thrown) {
    const { error, engines: report } = engineFailureOf(thrown);
    // Cancelled: the cancel settled the units already (returned, or charged for a running job);
    // the engine asked the provider to cancel where its API can.
    if (watch.signal.reason instanceof JobCancelled) return 'cancelled';
    // The queue took the attempt away (it expired): another attempt owns the job now.
    if (signal.aborted) throw error;
    if (!(error instanceof ApiError)) throw error;
    const usage = { usageEventId: randomUUID(), packageVersionId, durationMs: Date.now() - started, ...used(report) };
    const failure =
      error.code === 'provider_unavailable'
        ? { code: 'provider_unavailable', message: PROVIDER_FAILURE_MESSAGE }
        : { code: error.code, message: error.message };
    return (await failJob(db, job.id, { ...failure, usage })) ? 'failed' : 'already_finished';
  } finally {
    watch.stop();
  }

  const media = call.value;
  const key = jobResultKey(job.id);
  await storeOutputObject(db, { apiKeyId: job.api_key_id, storageKey: key }, media.bytes, media.mimeType);
  const outcome = await succeedJob(
    db,
    job,
    { usageEventId: randomUUID(), packageVersionId, durationMs: Date.now() - started, ...used(call.engines) },
    { key, mimeType: media.mimeType },
  );
  if (outcome === 'succeeded') return 'succeeded';
  const now = await findJob(db, job.id);
  if (!now || now.status === 'cancelled') {
    // Cancelled while the result arrived: the result is discarded (the cancel settled the units).
    await discardOutput(db, key);
    return 'cancelled';
  }
  if (now.status === 'succeeded' || now.status === 'failed') return 'already_finished';
  // The hold was returned (its lease ran out) while the job was still open: the job cannot be charged, so it fails.
  await failJob(db, job.id, { code: 'internal_error', message: EXHAUSTED_MESSAGE });
  return 'failed';
}

/**
 * A job whose attempts are all used up (dead-letter queue): failed, units returned. Its last
 * attempt, when it reached its engine, is recorded as the lost call it is (job-store.ts).
 */
export async function failExhaustedJob(db: SqlDb, jobId: string): Promise<boolean> {
  const job = await findJob(db, jobId);
  if (!job) return false;
  const packageVersionId = await packageVersionOfKey(db, job.api_key_id);
  const lost = job.status === 'running' && job.engine_attempt === job.attempts;
  return failJob(db, jobId, {
    code: 'internal_error',
    message: EXHAUSTED_MESSAGE,
    usage: {
      usageEventId: randomUUID(),
      packageVersionId,
      durationMs: Date.now() - job.updated_at.getTime(),
      ...(lost ? { enginesTried: engineListOf(job), errorCode: REQUEST_LOST } : {}),
    },
  });
}
