import type { SqlDb } from '../../db/client';
import sql, { raw } from 'sql-template-tag';
import { prepared } from '../../db/named-statement';
import { recentJobCostSql } from '../billing/expected-job-cost';
import { UTC_TODAY } from '../billing/settlement-sql';

// A provider-cost budget (limits.max_provider_cost_per_day) is judged when units are held and
// again when a queued job starts: jobs submitted while the key was under its budget do not all
// run once it is spent (50 jobs submitted at 00:00 UTC). A job's cost is known only when it
// ends, so its hold carries an expected cost, which the hold-time check adds up with the day's.

export const BUDGET_JOB_MESSAGE =
  "This key reached its package's provider cost budget for the day (UTC) before the job could start. No units were charged; submit it again after midnight UTC.";

/** Whether the key of this open job has spent its package's provider-cost budget for the UTC day. */
export async function jobKeyOverBudget(db: SqlDb, jobId: string): Promise<boolean> {
  const { rows } = await db.pool.query<{ over: boolean }>(
    prepared(
      'wgs-job-budget',
      sql`SELECT (k.cost_day = ${raw(UTC_TODAY)} AND k.cost_today >= v.max_provider_cost_per_day) AS over
             FROM jobs j JOIN api_keys k ON k.id = j.api_key_id JOIN package_versions v ON v.id = k.package_version_id
            WHERE j.id = ${jobId} AND j.status IN ('submitted', 'running') AND v.max_provider_cost_per_day IS NOT NULL`,
    ),
  );
  return rows[0]?.over === true;
}

/**
 * What a job on `engine` is expected to cost (billing/expected-job-cost.ts; decimal string); null when
 * its engine has no charged job yet (the start-time check still holds).
 */
export async function expectedJobCost(db: SqlDb, engine: string): Promise<string | null> {
  const { rows } = await db.pool.query<{ cost: string | null }>(
    prepared('wgs-job-expected-cost', sql`SELECT ${recentJobCostSql(sql`${engine}::text`)}::text AS cost`),
  );
  return rows[0]?.cost ?? null;
}
