import sql from 'sql-template-tag';
import type { SqlDb } from '../../db/client';
import type { PrismaClient } from '../../db/generated/client';
import { plannedEachRun } from '../../db/named-statement';
import { listUsageEvents, type UsageView } from './usage-events';
import { statusWhere } from '../keys/manage-keys';

// Aggregates for the dashboard's charts. Each is one grouped scan over the created_at range
// of usage_events (indexed), so the cost follows the window, not the table's age.

export interface DailyUsage {
  day: string;
  units: number;
  requests: number;
  failed: number;
}

export interface OperationUsage {
  operation: string;
  requests: number;
  failed: number;
  units: number;
  error_rate: number;
}

// COUNT and SUM of integers are PostgreSQL bigints, which pg hands over as decimal strings.
interface DailyRow {
  day: string;
  units: string | null;
  requests: string;
  failed: string;
}
interface OperationRow {
  operation: string;
  requests: string;
  failed: string;
  units: string | null;
}

const DAY_MS = 86_400_000;

function windowStart(days: number, now: Date): Date {
  const today = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate());
  return new Date(today - (days - 1) * DAY_MS);
}

/** Units charged, requests and failures per UTC day; days without traffic are zeros, not gaps. */
export async function usageByDay(db: SqlDb, input: { days?: number; apiKeyId?: string; now?: Date } = {}): Promise<DailyUsage[]> {
  const days = Math.min(Math.max(input.days ?? 14, 1), 366);
  const since = windowStart(days, input.now ?? new Date());
  const keyId = input.apiKeyId ?? null;
  const { rows } = await db.pool.query<DailyRow>(
    plannedEachRun(sql`SELECT to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD') AS day,
                 SUM(units) FILTER (WHERE outcome = 'succeeded') AS units,
                 COUNT(*) AS requests,
                 COUNT(*) FILTER (WHERE outcome = 'failed') AS failed
            FROM usage_events
           WHERE created_at >= ${since}
             AND (${keyId}::uuid IS NULL OR api_key_id = ${keyId}::uuid)
           GROUP BY 1`),
  );
  const byDay = new Map(rows.map((row) => [row.day, row]));
  return Array.from({ length: days }, (_, index) => {
    const day = new Date(since.getTime() + index * DAY_MS).toISOString().slice(0, 10);
    const row = byDay.get(day);
    return { day, units: Number(row?.units ?? 0), requests: Number(row?.requests ?? 0), failed: Number(row?.failed ?? 0) };
  });
}

export async function usageByOperation(db: SqlDb, input: { days?: number; now?: Date } = {}): Promise<OperationUsage[]> {
  const since = windowStart(Math.min(Math.max(input.days ?? 14, 1), 366), input.now ?? new Date());
  const { rows } = await db.pool.query<OperationRow>(
    plannedEachRun(sql`SELECT operation,
                 COUNT(*) AS requests,
                 COUNT(*) FILTER (WHERE outcome = 'failed') AS failed,
                 SUM(units) FILTER (WHERE outcome = 'succeeded') AS units
            FROM usage_events
           WHERE created_at >= ${since}
           GROUP BY operation
           ORDER BY operation`),
  );
  return rows.map((row) => {
    const requests = Number(row.requests);
    const failed = Number(row.failed);
    return { operation: row.operation, requests, failed, units: Number(row.units ?? 0), error_rate: requests ? failed / requests : 0 };
  });
}

export interface Overview {
  days: number;
  daily: DailyUsage[];
  operations: OperationUsage[];
  totals: { requests: number; failed: number; units: number; error_rate: number; active_keys: number };
  recent_failures: UsageView[];
}

export async function getOverview(db: PrismaClient, sqlDb: SqlDb, input: { days?: number; now?: Date } = {}): Promise<Overview> {
  const days = Math.min(Math.max(input.days ?? 14, 1), 366);
  const [daily, operations, activeKeys, failures] = await Promise.all([
    usageByDay(sqlDb, { days, now: input.now }),
    usageByOperation(sqlDb, { days, now: input.now }),
    db.apiKey.count({ where: statusWhere('active', input.now ?? new Date()) }), // expired keys are stored active
    listUsageEvents(db, { outcome: 'failed', limit: 10 }),
  ]);
  const requests = daily.reduce((sum, d) => sum + d.requests, 0);
  const failed = daily.reduce((sum, d) => sum + d.failed, 0);
  const units = daily.reduce((sum, d) => sum + d.units, 0);
  return {
    days,
    daily,
    operations,
    totals: { requests, failed, units, error_rate: requests ? failed / requests : 0, active_keys: activeKeys },
    recent_failures: failures.items,
  };
}
