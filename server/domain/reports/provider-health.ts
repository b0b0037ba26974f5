import sql, { join } from 'sql-template-tag';
import type { SqlDb } from '../../db/client';
import { plannedEachRun } from '../../db/named-statement';

// Each provider's last 24 hours, from usage_events: every engine a request called is one call
// to its provider (fallbacks included); a call failed unless its engine answered a request that
// succeeded, and a streamed answer the provider broke off after its first piece (charged, its
// usage event `succeeded` with why it ended) failed too. p95 is of the requests the provider
// answered (the whole request, as the customer waited: a fallback's includes the engines tried before it).

export interface ProviderHealth {
  provider: string;
  calls: number;
  failures: number;
  /** null when it answered nothing in the window. */
  p95_ms: number | null;
}

interface HealthRow {
  provider: string;
  /** COUNTs: PostgreSQL bigints, decimal strings from pg. */
  calls: string;
  failures: string;
  p95_ms: number | null;
}

export const HEALTH_WINDOW_HOURS = 24;

/** How a charged stream ends when its provider broke it off (generation/stream-endings.ts): the provider failed, or was cut off at the deadline. */
const BROKEN_OFF = join(['provider_failed', 'deadline_exceeded'].map((ending) => sql`${ending}`));
/** The call `t` (an engine of the request `e`) answered: its engine's, of a request that succeeded, not broken off. */
const ANSWERED = sql`(t.name = e.engine AND e.outcome = 'succeeded' AND COALESCE(e.error_code NOT IN (${BROKEN_OFF}), true))`;

export async function providerHealth(db: SqlDb, input: { now?: Date } = {}): Promise<Map<string, ProviderHealth>> {
  const since = new Date((input.now ?? new Date()).getTime() - HEALTH_WINDOW_HOURS * 3_600_000);
  const { rows } = await db.pool.query<HealthRow>(
    plannedEachRun(sql`SELECT split_part(t.name, ':', 1) AS provider,
                 COUNT(*) AS calls,
                 COUNT(*) FILTER (WHERE NOT ${ANSWERED}) AS failures,
                 (percentile_cont(0.95) WITHIN GROUP (ORDER BY e.duration_ms) FILTER (WHERE ${ANSWERED}))::float8 AS p95_ms
            FROM usage_events e
            CROSS JOIN LATERAL unnest(e.engines_tried) AS t(name)
           WHERE e.created_at >= ${since} AND t.name <> 'local'
           GROUP BY 1`),
  );
  return new Map(
    rows.map((row) => [
      row.provider,
      {
        provider: row.provider,
        calls: Number(row.calls),
        failures: Number(row.failures),
        p95_ms: row.p95_ms === null ? null : Math.round(row.p95_ms),
      },
    ]),
  );
}

/** The window's numbers of one provider; zeros when it was not called. */
export function healthOf(health: Map<string, ProviderHealth>, provider: string): ProviderHealth {
  return health.get(provider) ?? { provider, calls: 0, failures: 0, p95_ms: null };
}
