import type pg from 'pg';

// What PostgreSQL did besides answering while a window was measured: the autovacuums and
// autoanalyzes that finished (by table) or were still running at its end, the checkpoints begun
// and the full-page images written. Each costs CPU that the bench counts as PostgreSQL's, per request.

export interface DatabaseActivity {
  checkpoints: number;
  fullPages: number;
  /** table -> autovacuums + autoanalyzes finished so far */
  maintained: Map<string, number>;
  /** tables autovacuum was working on when read */
  vacuuming: string[];
}

export async function databaseActivity(stats: pg.Client): Promise<DatabaseActivity> {
  const { rows } = await stats.query<{ checkpoints: number; full_pages: string; maintained: Record<string, number>; vacuuming: string[] }>(
    `SELECT (SELECT (num_timed + num_requested)::int FROM pg_stat_checkpointer) AS checkpoints,
            (SELECT wal_fpi FROM pg_stat_wal) AS full_pages,
            (SELECT jsonb_object_agg(relname, autovacuum_count + autoanalyze_count) FROM pg_stat_user_tables) AS maintained,
            ARRAY(SELECT relid::regclass::text FROM pg_stat_progress_vacuum ORDER BY 1) AS vacuuming`,
  );
  const row = rows[0]!;
  return {
    checkpoints: row.checkpoints,
    fullPages: Number(row.full_pages),
    maintained: new Map(Object.entries(row.maintained ?? {})),
    vacuuming: row.vacuuming,
  };
}

/** One line: what happened between `before` and `after` (empty when nothing did). */
export function activityNote(before: DatabaseActivity, after: DatabaseActivity): string {
  const maintained = [...after.maintained].filter(([table, count]) => count > (before.maintained.get(table) ?? 0)).map(([table]) => table);
  const parts = [
    maintained.length > 0 ? `autovacuum/analyze finished on ${maintained.sort().join(', ')}` : '',
    after.vacuuming.length > 0 ? `autovacuum running on ${after.vacuuming.join(', ')}` : '',
    after.checkpoints > before.checkpoints ? `${after.checkpoints - before.checkpoints} checkpoint(s)` : '',
    `${after.fullPages - before.fullPages} full-page images`,
  ];
  return parts.filter(Boolean).join('; ');
}
