import sql, { type Sql } from 'sql-template-tag';

// What a video job on an engine is expected to cost at its provider, before its own cost is known:
// the mean provider cost of that engine's last 20 jobs that produced a video in 30 days (none:
// null). A key's budget counts it while the job is held (jobs/job-budget.ts); a job cancelled
// while running is charged that much, as an estimate (job-holds.ts).

/** The expected cost (numeric, or NULL) of a job on the engine `engine` names (a SQL expression). */
export function recentJobCostSql(engine: Sql): Sql {
  return sql`(SELECT avg(provider_cost) FROM (
                SELECT provider_cost FROM usage_events
                 WHERE engine = ${engine} AND job_id IS NOT NULL AND outcome = 'succeeded' AND error_code IS NULL
                   AND provider_cost IS NOT NULL AND created_at > now() - interval '30 days'
                 ORDER BY created_at DESC LIMIT 20) recent)`;
}
