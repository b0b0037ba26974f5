import { getConfig } from '../../config';
import { retentionDeletedBytes } from '../../contract/dashboard/upload-retention';
import type { KeyDescription } from '../../contract/key';
import type { SqlDb } from '../../db/client';
import type { PrismaClient } from '../../db/generated/client';
import { describeKey } from '../keys/describe-key';
import { listJobs } from '../reports/jobs';
import { usageByDay, type DailyUsage } from '../reports/overview';
import { listUploads, type UploadView } from '../reports/uploads';
import { listUsageEvents } from '../reports/usage-events';
import { confirmationsAvailable, maskEmail, supportContact } from './portal-settings';

// What the portal shows a signed-in customer: the operator's report queries, each scoped to the
// session's key, projected to what a customer may see (never the engine, provider or its cost).
// A leaked key must learn no more here than through /v1, which lists neither jobs nor uploads:
// jobs and uploads are shown without their ids (a job id reads its output through /v1) or file
// names; what they did, how they ended, what they cost and when is what the buyer needs.

const RECENT = 20;

export interface PortalCall {
  id: string;
  operation: string;
  /** The surface the call came through: `v1` or `openai` (/openai/v1). */
  surface: string;
  outcome: string;
  units: number;
  error_code: string | null;
  request_id: string | null;
  created_at: string;
}

export interface PortalJob {
  operation: string;
  status: string;
  /** The job's price, held while it runs. */
  units: number;
  /** What it cost the key, as GET /v1/jobs/{id} says: 0 once it failed or was cancelled in time. */
  charged_units: number;
  error_code: string | null;
  created_at: string;
}

export interface PortalUpload {
  /** Its status, or `deleted` once retention deleted a verified one's bytes (/v1 answers 404 for it since). */
  status: string;
  purpose: string;
  size_bytes: number;
  created_at: string;
  /** Until when it can be used: a pending one completed (its expires_at), a verified one as input (until retention); null after. */
  usable_until: string | null;
}

/** Who confirms changes of the key, and whom to ask. */
export interface PortalOwner {
  status: 'active' | 'suspended';
  suspended_at: string | null;
  /** The buyer's e-mail, masked; null when the key has none. */
  email: string | null;
  /** Rotation and webhook changes are possible: mail is on and the key has a buyer's e-mail. */
  can_change: boolean;
  contact: string;
}

export interface PortalOverview {
  key: KeyDescription & { total_units: number };
  owner: PortalOwner;
  daily: DailyUsage[];
  calls: PortalCall[];
  jobs: PortalJob[];
  uploads: PortalUpload[];
}

export async function getPortalOverview(db: PrismaClient, sql: SqlDb, apiKeyId: string, days = 30): Promise<PortalOverview> {
  const [key, totals, daily, calls, jobs, uploads] = await Promise.all([
    describeKey(sql, apiKeyId),
    db.apiKey.findUniqueOrThrow({
      where: { id: apiKeyId },
      select: { totalUnits: true, status: true, suspendedAt: true, buyerEmail: true },
    }),
    usageByDay(sql, { apiKeyId, days }),
    listUsageEvents(db, { apiKeyId, limit: RECENT }),
    listJobs(db, { apiKeyId, limit: RECENT }),
    listUploads(db, { apiKeyId, limit: RECENT }),
  ]);
  return {
    key: { ...key, total_units: totals.totalUnits },
    owner: {
      status: totals.status === 'suspended' ? 'suspended' : 'active',
      suspended_at: totals.status === 'suspended' ? (totals.suspendedAt?.toISOString() ?? null) : null,
      email: totals.buyerEmail ? maskEmail(totals.buyerEmail) : null,
      can_change: totals.status === 'active' && confirmationsAvailable(totals.buyerEmail),
      contact: supportContact(),
    },
    daily,
    calls: calls.items.map((call) => ({
      id: call.id,
      operation: call.operation,
      surface: call.surface,
      outcome: call.outcome,
      units: call.units,
      error_code: call.error_code,
      request_id: call.request_id,
      created_at: call.created_at,
    })),
    jobs: jobs.items.map((job) => ({
      operation: job.operation,
      status: job.status,
      units: job.units,
      charged_units: job.charged_units,
      error_code: job.error_code,
      created_at: job.created_at,
    })),
    uploads: uploads.items.map((upload) => ({
      status: retentionDeletedBytes(upload) ? 'deleted' : upload.status,
      purpose: upload.purpose,
      size_bytes: upload.size_bytes,
      created_at: upload.created_at,
      usable_until: usableUntil(upload),
    })),
  };
}

/** A pending upload can be completed until it expires; a verified one is an input until retention deletes it. */
function usableUntil(upload: UploadView): string | null {
  if (upload.deleted_at) return null;
  if (upload.status === 'pending') return upload.expires_at;
  if (upload.status !== 'verified') return null;
  return new Date(Date.parse(upload.created_at) + getConfig().UPLOAD_RETENTION_HOURS * 3_600_000).toISOString();
}
