import type pg from 'pg';
import sql from 'sql-template-tag';
import { prepared } from '../../db/named-statement';

// Changes that could leave no owner (a demotion, a disabling) and the creation of the first
// operator take this transaction lock, so two at once cannot both see "another owner remains".
// The lock is an advisory one, which the ORM cannot take: these changes run whole in one pg
// transaction (inPgTransaction), their reads and writes beside it.
const OWNERS_LOCK_ID = 7_310_424_015;

/** Inside the caller's pg transaction: takes the owners' lock, then counts the enabled owners. */
export async function lockOwners(client: pg.PoolClient): Promise<number> {
  await client.query(prepared('wgs-operators-lock', sql`SELECT 1 AS locked FROM pg_advisory_xact_lock(${OWNERS_LOCK_ID}::bigint)`));
  const { rows } = await client.query<{ owners: number }>(
    prepared('wgs-operators-count-owners', sql`SELECT COUNT(*)::int AS owners FROM operators WHERE role = 'owner' AND disabled_at IS NULL`),
  );
  return rows[0]?.owners ?? 0;
}
