import type pg from 'pg';
import { cpuByPid, postgresPids } from './proc-stats';

// What PostgreSQL did besides answering while a window was measured: the autovacuums and
// autoanalyzes that finished (by table) or were still running at its end, the checkpoints begun,
// the full-page images written, the WAL segments it created (zero-filled with the WAL write lock
// held: every commit waits meanwhile), and PostgreSQL's CPU by kind of process (client backends,
// WAL writer, ...). Each costs CPU that the bench counts as PostgreSQL's, per request.

export interface DatabaseActivity {
  checkpoints: number;
  fullPages: number;
  /** WAL segments created (not recycled) so far: pg_stat_io's WAL writes in the init context, one per segment. */
  walSegmentsCreated: number;
  /** table -> autovacuums + autoanalyzes finished so far */
  maintained: Map<string, number>;
  /** tables autovacuum was working on when read */
  vacuuming: string[];
  /** CPU ms so far of each PostgreSQL process, and its kind (pg_stat_activity's backend_type) */
  cpu: Map<number, number>;
  kinds: Map<number, string>;
}

export async function databaseActivity(stats: pg.Client, postmasterPid: number): Promise<DatabaseActivity> {
  const cpu = cpuByPid(postgresPids(postmasterPid));
  const { rows } = await stats.query<{
    checkpoints: number;
    full_pages: string;
    wal_init: string;
    maintained: Record<string, number>;
    vacuuming: string[];
    kinds: Record<string, string>;
  }>(
    `SELECT (SELECT (num_timed + num_requested)::int FROM pg_stat_checkpointer) AS checkpoints,
            (SELECT wal_fpi FROM pg_stat_wal) AS full_pages,
            (SELECT coalesce(sum(writes), 0) FROM pg_stat_io WHERE object = 'wal' AND context = 'init') AS wal_init,
            (SELECT jsonb_object_agg(relname, autovacuum_count + autoanalyze_count) FROM pg_stat_user_tables) AS maintained,
            ARRAY(SELECT relid::regclass::text FROM pg_stat_progress_vacuum ORDER BY 1) AS vacuuming,
            (SELECT jsonb_object_agg(pid, backend_type) FROM pg_stat_activity) AS kinds`,
  );
  const row = rows[0]!;
  return {
    checkpoints: row.checkpoints,
    fullPages: Number(row.full_pages),
    walSegmentsCreated: Number(row.wal_init),
    maintained: new Map(Object.entries(row.maintained ?? {})),
    vacuuming: row.vacuuming,
    cpu,
    kinds: new Map(Object.entries(row.kinds ?? {}).map(([pid, kind]) => [Number(pid), kind])),
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
    after.walSegmentsCreated > before.walSegmentsCreated
      ? `${after.walSegmentsCreated - before.walSegmentsCreated} WAL segment(s) created`
      : '',
    `CPU ms ${cpuByKind(before, after)}`,
  ];
  return parts.filter(Boolean).join('; ');
}

/** PostgreSQL's CPU between the two readings by kind of process, largest first (a process that began and ended between them is not seen). */
function cpuByKind(before: DatabaseActivity, after: DatabaseActivity): string {
  const byKind = new Map<string, number>();
  for (const [pid, ms] of after.cpu) {
    const kind = after.kinds.get(pid) ?? before.kinds.get(pid) ?? 'postmaster or other';
    byKind.set(kind, (byKind.get(kind) ?? 0) + Math.max(0, ms - (before.cpu.get(pid) ?? 0)));
  }
  return [...byKind]
    .filter(([, ms]) => ms > 0)
    .sort((a, b) => b[1] - a[1])
    .map(([kind, ms]) => `${kind} ${Math.round(ms)}`)
    .join(', ');
}
