import type { SqlDb } from '../../db/client';

// The crash side of a hold: a request that died (its process gone) leaves its hold until its
// lease runs out; the background sweeper then settles it here, on any instance.

/** Returns holds whose lease ran out (their request died) to their keys. Safe on many instances at once. */
export async function sweepExpiredHolds(db: SqlDb): Promise<number> {
  const { rowCount } = await db.pool.query(
    `WITH released AS (
       UPDATE unit_holds SET status = 'released', settled_at = now()
        WHERE id IN (SELECT id FROM unit_holds WHERE status = 'held' AND lease_until < now()
                      ORDER BY lease_until LIMIT 1000 FOR UPDATE SKIP LOCKED)
       RETURNING api_key_id, units, counts_in_flight
     ), per_key AS (
       SELECT api_key_id, sum(units)::int AS units, count(*) FILTER (WHERE counts_in_flight)::int AS slots
         FROM released GROUP BY api_key_id
     )
     UPDATE api_keys k SET remaining_units = k.remaining_units + p.units, in_flight = k.in_flight - p.slots
       FROM per_key p WHERE k.id = p.api_key_id`,
  );
  return rowCount ?? 0;
}
