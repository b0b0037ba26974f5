import type { JobView, VideosGenerateRequest } from '../../contract/jobs-and-uploads';
import { getConfig } from '../../config';
import type { SqlDb } from '../../db/client';
import type { PrismaClient } from '../../db/generated/client';
import { ApiError } from '../errors';
import { INPUT_UPLOAD_PURPOSES } from '../operations';
import { operationSettings } from '../generation/package-settings';
import type { AuthenticatedKey } from '../keys/authenticate-key';
import { resolveInputUpload } from '../uploads/resolve-input-upload';
import { engineNamesOf } from '../engine-names';
import { expectedJobCost } from './job-budget';
import { enqueueVideoJob, getJobQueue } from '../queue/job-queue';
import type { JobInput } from '../job-row';
import { insertJob, newJobId } from './job-store';
import { completeIdempotencyKeyOn } from '../billing/idempotency-store';
import { handHoldToJob } from '../billing/job-holds';
import { toJobView } from './job-view';

// POST /v1/videos/generate, the domain half: package settings and the referenced upload
// (step 7), then, with the units already held, one transaction that makes the job durable,
// stores the 202 for idempotent replay, hands the hold over to the job and enqueues it.
// Either all of that commits or none of it does.

export interface PreparedVideoJob {
  input: JobInput;
  /** The package's engine, or its ordered fallbacks. */
  engine: string | readonly string[];
  units: number;
  /** Its expected provider cost, for a key with a budget (job-budget.ts); null: none known or no budget. */
  expectedCost: string | null;
}

export async function prepareVideosGenerate(
  db: PrismaClient,
  sqlDb: SqlDb,
  body: VideosGenerateRequest,
  key: AuthenticatedKey,
): Promise<PreparedVideoJob> {
  const settings = operationSettings(key, 'videos.generate');
  let inputUpload: JobInput['inputUpload'] = null;
  if (body.input_upload_id !== undefined) {
    if (!settings.input_uploads) {
      throw ApiError.validation([
        {
          path: 'input_upload_id',
          code: 'not_allowed_by_package',
          message: "input_upload_id: this key's package does not take input uploads for videos.generate.",
        },
      ]);
    }
    const upload = await resolveInputUpload(db, key, body.input_upload_id, INPUT_UPLOAD_PURPOSES['videos.generate']);
    inputUpload = { uploadId: upload.id, storageKey: upload.storageKey, mimeType: upload.mimeType };
  }
  const expectedCost = key.maxProviderCostPerDay !== null ? await expectedJobCost(sqlDb, engineNamesOf(settings.engine)[0]!) : null;
  return { input: { prompt: body.prompt, inputUpload }, engine: settings.engine, units: settings.units, expectedCost };
}

/**
 * The hold of a job must outlive every attempt the queue may still make (else the hold sweeper
 * would return the units of a live job): JOB_HOLD_LEASE_SECONDS, or longer if the retry settings need it.
 */
export function jobHoldLeaseSeconds(): number {
  const config = getConfig();
  const attempts = config.JOB_RETRY_LIMIT + 1;
  const worstCase = attempts * (config.JOB_EXPIRE_SECONDS + config.JOB_HEARTBEAT_SECONDS + config.JOB_RETRY_DELAY_SECONDS) + 600;
  return Math.max(config.JOB_HOLD_LEASE_SECONDS, worstCase);
}

export interface SubmitContext {
  apiKeyId: string;
  holdId: string;
  requestId: string;
  idempotencyRecordId: string;
  origin: string;
}

export async function submitVideoJob(db: SqlDb, prepared: PreparedVideoJob, ctx: SubmitContext): Promise<JobView> {
  const boss = await getJobQueue();
  const createdAt = new Date();
  const job = {
    id: newJobId(),
    apiKeyId: ctx.apiKeyId,
    operation: 'videos.generate',
    input: prepared.input,
    engine: prepared.engine,
    units: prepared.units,
    holdId: ctx.holdId,
    requestId: ctx.requestId,
    createdAt,
  };
  const view = toJobView(
    {
      id: job.id,
      status: 'submitted',
      units: job.units,
      created_at: createdAt,
      updated_at: createdAt,
      result_key: null,
      result_mime_type: null,
      error_code: null,
      error_message: null,
      charged_on_cancel: false,
    },
    ctx.origin,
  );

  const client = await db.pool.connect();
  try {
    await client.query('BEGIN');
    await insertJob(client, job);
    if (!(await completeIdempotencyKeyOn(client, ctx.idempotencyRecordId, 202, JSON.stringify(view)))) {
      // The request outlived its idempotency lease and a retry took the key over.
      throw new ApiError('idempotency_key_in_use', { retryAfter: 1 });
    }
    if (!(await handHoldToJob(client, ctx.holdId, jobHoldLeaseSeconds()))) {
      throw new Error(`hold ${ctx.holdId} was no longer held at submission`);
    }
    await enqueueVideoJob(boss, client, job.id);
    await client.query('COMMIT');
  } catch (error) {
    await client.query('ROLLBACK').catch(() => {});
    throw error;
  } finally {
    client.release();
  }
  return view;
}
