import pg from 'pg';
import { getConfig } from '../config';
import { listenForErrors } from '../db/pg-errors';
import { getRedis } from '../db/redis';
import { pendingMigrations } from '../db/schema-status';
import { isStopping, onShutdown } from '../lifecycle/shutdown-hooks';

// GET /readyz: whether a load balancer should send this instance traffic. 200 only when
// PostgreSQL (and Redis, when REDIS_URL is set) answer within READINESS_TIMEOUT_MS and the schema
// has every migration of this code; 503 once a stop began. Reads only; needs no key; the body
// names the failing dependency and nothing else (no host, no error text).

export type CheckResult = 'ok' | 'not_configured' | 'timeout' | 'unreachable' | 'behind' | 'unknown';

export interface Readiness {
  status: 'ready' | 'not_ready' | 'draining';
  /** The dependencies that failed, by name. */
  failing: string[];
  checks: { postgres: CheckResult; schema: CheckResult; redis: CheckResult };
  /** When the schema is behind: the migrations not applied. */
  pending_migrations?: string[];
}

let own: { url: string; pool: pg.Pool } | undefined;

/** One connection of its own: a busy request pool must not make a healthy database look down. */
function readinessPool(url: string, timeoutMs: number): pg.Pool {
  const current = own;
  if (current?.url === url) return current.pool;
  if (current) void current.pool.end().catch(() => {}); // DATABASE_URL changed (tests)
  const pool = new pg.Pool({
    connectionString: url,
    max: 1,
    connectionTimeoutMillis: timeoutMs,
    query_timeout: timeoutMs,
    idleTimeoutMillis: 60_000,
    application_name: 'wgs-readiness',
  });
  pool.on('error', () => {}); // a dropped idle connection: the next check reconnects
  pool.on('connect', listenForErrors);
  own = { url, pool };
  if (!current) {
    onShutdown(async () => {
      const open = own;
      own = undefined;
      await open?.pool.end().catch(() => {});
    });
  }
  return pool;
}

class Timeout extends Error {}

function within<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Timeout()), ms);
  });
  return Promise.race([work, expired]).finally(() => clearTimeout(timer));
}

const failure = (error: unknown): CheckResult => (error instanceof Timeout || /timeout/i.test(String(error)) ? 'timeout' : 'unreachable');

export async function checkReadiness(): Promise<Readiness> {
  const checks: Readiness['checks'] = { postgres: 'unknown', schema: 'unknown', redis: 'not_configured' };
  if (isStopping()) return { status: 'draining', failing: ['instance'], checks };
  const config = getConfig();
  const timeoutMs = config.READINESS_TIMEOUT_MS;
  let pending: string[] = [];
  const postgres = (async () => {
    if (!config.DATABASE_URL) throw new Error('no database');
    pending = await within(pendingMigrations(readinessPool(config.DATABASE_URL, timeoutMs)), timeoutMs);
    checks.postgres = 'ok';
    checks.schema = pending.length === 0 ? 'ok' : 'behind';
  })().catch((error: unknown) => {
    checks.postgres = failure(error);
  });
  const redis = (async () => {
    const client = getRedis();
    if (!client) return;
    await within(client.ping(), timeoutMs);
    checks.redis = 'ok';
  })().catch((error: unknown) => {
    checks.redis = failure(error);
  });
  await Promise.all([postgres, redis]);
  const failing = (Object.keys(checks) as (keyof Readiness['checks'])[]).filter(
    (name) => !['ok', 'not_configured', 'unknown'].includes(checks[name]),
  );
  if (isStopping()) return { status: 'draining', failing: ['instance'], checks };
  return {
    status: failing.length === 0 ? 'ready' : 'not_ready',
    failing,
    checks,
    ...(pending.length > 0 ? { pending_migrations: pending } : {}),
  };
}

export async function serveReadiness(): Promise<Response> {
  const readiness = await checkReadiness();
  return Response.json(readiness, { status: readiness.status === 'ready' ? 200 : 503, headers: { 'Cache-Control': 'no-store' } });
}
