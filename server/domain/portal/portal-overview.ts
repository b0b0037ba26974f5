import type { KeyDescription } from '../../contract/key';
import type { SqlDb } from '../../db/client';
import type { PrismaClient } from '../../db/generated/client';
import { describeKey } from '../keys/describe-key';
import { listJobs } from '../reports/jobs';
import { usageByDay, type DailyUsage } from '../reports/overview';
import { listUploads } from '../reports/uploads';
import { listUsageEvents } from '../reports/usage-events';

// What the portal shows a signed-in customer: the operator's report queries, each scoped to the
// session's key, projected to what a customer may see (never the engine, provider or its cost).

const RECENT = 20;

export interface PortalCall {
  id: string;
  operation: string;
  outcome: string;
  units: number;
  error_code: string | null;
  request_id: string | null;
  created_at: string;
}

export interface PortalJob {
  id: string;
  operation: string;
  status: string;
  units: number;
  error_code: string | null;
  created_at: string;
}

export interface PortalUpload {
  id: string;
  status: string;
  purpose: string;
  filename: string | null;
  size_bytes: number;
  created_at: string;
  expires_at: string;
}

export interface PortalOverview {
  key: KeyDescription & { total_units: number };
  daily: DailyUsage[];
  calls: PortalCall[];
  jobs: PortalJob[];
  uploads: PortalUpload[];
}

export async function getPortalOverview(db: PrismaClient, sql: SqlDb, apiKeyId: string, days = 30): Promise<PortalOverview> {
  const [key, totals, daily, calls, jobs, uploads] = await Promise.all([
    describeKey(sql, apiKeyId),
    db.apiKey.findUniqueOrThrow({ where: { id: apiKeyId }, select: { totalUnits: true } }),
    usageByDay(db, { apiKeyId, days }),
    listUsageEvents(db, { apiKeyId, limit: RECENT }),
    listJobs(db, { apiKeyId, limit: RECENT }),
    listUploads(db, { apiKeyId, limit: RECENT }),
  ]);
  return {
    key: { ...key, total_units: totals.totalUnits },
    daily,
    calls: calls.items.map((call) => ({
      id: call.id,
      operation: call.operation,
      outcome: call.outcome,
      units: call.units,
      error_code: call.error_code,
      request_id: call.request_id,
      created_at: call.created_at,
    })),
    jobs: jobs.items.map((job) => ({
      id: job.id,
      operation: job.operation,
      status: job.status,
      units: job.units,
      error_code: job.error_code,
      created_at: job.created_at,
    })),
    uploads: uploads.items.map((upload) => ({
      id: upload.id,
      status: upload.status,
      purpose: upload.purpose,
      filename: upload.filename,
      size_bytes: upload.size_bytes,
      created_at: upload.created_at,
      expires_at: upload.expires_at,
    })),
  };
}
