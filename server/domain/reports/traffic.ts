import sql, { raw } from 'sql-template-tag';
import type { SqlDb } from '../../db/client';
import type { PrismaClient } from '../../db/generated/client';
import { plannedEachRun } from '../../db/named-statement';
import { bucketStarts, type TimeRange } from './time-range';
import { listUsageEvents, type UsageView } from './usage-events';
import { statusWhere } from '../keys/manage-keys';

// The overview's counts over a time range, each request in exactly one class:
// succeeded and failed are usage events (the request reached an engine); refused and failed
// (server, a 500 before any engine) come from the refused_requests rollup. A usage event failed
// by the server itself after the engine (internal_error: its output could not be stored, a job's
// hold ran out) is a server failure too, not the provider's. 503s
// before an engine (a database or Redis that does not answer) count as refused: the request was
// turned away, nothing was charged, and a retry may succeed. A call its client left before any
// output (client_disconnected: an abort, a timeout) is neither's failure: it is counted as left.

/** The rollup's server failures; everything else in it is a refusal. */
const serverFailure = raw('status >= 500 AND status <> 503');
/** A failed usage event the server caused, not the engine. */
const serverFailedEvent = raw(`outcome = 'failed' AND error_code = 'internal_error'`);
const clientLeftEvent = raw(`outcome = 'failed' AND error_code = 'client_disconnected'`);
const providerFailedEvent = raw(
  `outcome = 'failed' AND error_code IS DISTINCT FROM 'internal_error' AND error_code IS DISTINCT FROM 'client_disconnected'`,
);

export interface TrafficBucket {
  at: string;
  succeeded: number;
  failed: number;
  left: number;
  refused: number;
}

export interface TrafficOverview {
  range: { from: string; to: string; bucket: 'hour' | 'day'; label: string };
  totals: {
    requests: number;
    succeeded: number;
    failed_provider: number;
    failed_server: number;
    left_by_client: number;
    refused: number;
    units: number;
    active_keys: number;
  };
  buckets: TrafficBucket[];
  refused_by_code: { status: number; code: string; count: number }[];
  failed_by_operation: { operation: string; provider: number; server: number }[];
  recent_failures: UsageView[];
}

const stepSeconds = (range: TimeRange) => (range.bucket === 'hour' ? 3600 : 86_400);

// COUNTs and SUMs of integers are PostgreSQL bigints (SUMs of bigints numerics): decimal strings from pg.
interface UsageBucketRow {
  at: string;
  succeeded: string;
  failed_provider: string;
  failed_server: string;
  left: string;
  units: string | null;
}
interface RefusedBucketRow {
  at: string;
  refused: string | null;
  server: string | null;
}

async function bucketCounts(db: SqlDb, range: TimeRange) {
  const step = stepSeconds(range);
  const [usage, refused] = await Promise.all([
    db.pool.query<UsageBucketRow>(
      plannedEachRun(sql`SELECT (floor(extract(epoch FROM created_at) / ${step}) * ${step})::bigint AS at,
                   COUNT(*) FILTER (WHERE outcome = 'succeeded') AS succeeded,
                   COUNT(*) FILTER (WHERE ${providerFailedEvent}) AS failed_provider,
                   COUNT(*) FILTER (WHERE ${serverFailedEvent}) AS failed_server,
                   COUNT(*) FILTER (WHERE ${clientLeftEvent}) AS left,
                   SUM(units) FILTER (WHERE outcome = 'succeeded') AS units
              FROM usage_events
             WHERE created_at >= ${range.from} AND created_at < ${range.to}
             GROUP BY 1`),
    ),
    db.pool.query<RefusedBucketRow>(
      plannedEachRun(sql`SELECT (floor(extract(epoch FROM minute) / ${step}) * ${step})::bigint AS at,
                   SUM(count) FILTER (WHERE NOT (${serverFailure})) AS refused,
                   SUM(count) FILTER (WHERE ${serverFailure}) AS server
              FROM refused_requests
             WHERE minute >= ${range.from} AND minute < ${range.to}
             GROUP BY 1`),
    ),
  ]);
  return { usage: usage.rows, refused: refused.rows };
}

export async function refusedByCode(db: SqlDb, range: TimeRange, apiKeyId?: string) {
  const key = apiKeyId ?? null;
  const { rows } = await db.pool.query<{ status: number; code: string; count: string }>(
    plannedEachRun(sql`SELECT status, code, SUM(count) AS count FROM refused_requests
           WHERE minute >= ${range.from} AND minute < ${range.to} AND NOT (${serverFailure})
             AND (${key}::uuid IS NULL OR api_key_id = ${key}::uuid)
           GROUP BY status, code ORDER BY 3 DESC, status, code`),
  );
  return rows.map((row) => ({ status: row.status, code: row.code, count: Number(row.count) }));
}

async function failedByOperation(db: SqlDb, range: TimeRange) {
  const { rows } = await db.pool.query<{ operation: string; provider: string; server: string }>(
    plannedEachRun(sql`SELECT operation, SUM(provider) AS provider, SUM(server) AS server FROM (
            SELECT operation, COUNT(*) FILTER (WHERE ${providerFailedEvent}) AS provider,
                   COUNT(*) FILTER (WHERE ${serverFailedEvent}) AS server FROM usage_events
             WHERE created_at >= ${range.from} AND created_at < ${range.to} AND outcome = 'failed' GROUP BY operation
            UNION ALL
            SELECT operation, 0, SUM(count) FROM refused_requests
             WHERE minute >= ${range.from} AND minute < ${range.to} AND ${serverFailure} GROUP BY operation
          ) f GROUP BY operation ORDER BY operation`),
  );
  return rows.map((row) => ({ operation: row.operation, provider: Number(row.provider), server: Number(row.server) }));
}

export async function getTrafficOverview(db: PrismaClient, sqlDb: SqlDb, range: TimeRange): Promise<TrafficOverview> {
  const [counts, byCode, byOperation, activeKeys, failures] = await Promise.all([
    bucketCounts(sqlDb, range),
    refusedByCode(sqlDb, range),
    failedByOperation(sqlDb, range),
    db.apiKey.count({ where: statusWhere('active', new Date()) }), // expired keys are stored active
    listUsageEvents(db, { outcome: 'failed', from: range.from, to: range.to, limit: 10 }),
  ]);
  const usage = new Map(counts.usage.map((row) => [Number(row.at) * 1000, row]));
  const refused = new Map(counts.refused.map((row) => [Number(row.at) * 1000, row]));
  const buckets = bucketStarts(range).map((start) => {
    const u = usage.get(start.getTime());
    const r = refused.get(start.getTime());
    return {
      at: start.toISOString(),
      succeeded: Number(u?.succeeded ?? 0),
      failed: Number(u?.failed_provider ?? 0) + Number(u?.failed_server ?? 0) + Number(r?.server ?? 0),
      left: Number(u?.left ?? 0),
      refused: Number(r?.refused ?? 0),
    };
  });
  const sum = <T>(rows: T[], pick: (row: T) => unknown) => rows.reduce((total, row) => total + Number(pick(row) ?? 0), 0);
  const succeeded = sum(counts.usage, (row) => row.succeeded);
  const failedProvider = sum(counts.usage, (row) => row.failed_provider);
  const failedServer = sum(counts.usage, (row) => row.failed_server) + sum(counts.refused, (row) => row.server);
  const left = sum(counts.usage, (row) => row.left);
  const refusedTotal = sum(counts.refused, (row) => row.refused);
  return {
    range: { from: range.from.toISOString(), to: range.to.toISOString(), bucket: range.bucket, label: range.label },
    totals: {
      requests: succeeded + failedProvider + failedServer + left + refusedTotal,
      succeeded,
      failed_provider: failedProvider,
      failed_server: failedServer,
      left_by_client: left,
      refused: refusedTotal,
      units: sum(counts.usage, (row) => row.units),
      active_keys: activeKeys,
    },
    buckets,
    refused_by_code: byCode,
    failed_by_operation: byOperation,
    recent_failures: failures.items,
  };
}
