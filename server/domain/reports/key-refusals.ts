import sql from 'sql-template-tag';
import type { SqlDb } from '../../db/client';
import type { PrismaClient } from '../../db/generated/client';
import { plannedEachRun } from '../../db/named-statement';
import { KEY_INCLUDE, toKeyView, type KeyView } from '../keys/key-view';
import type { TimeRange } from './time-range';

// Keys by how many of their requests were refused over a range, most first (the keys list's
// "sort by refusals"): one grouped scan of the rollup's (api_key_id, minute) index, then the keys.

export async function listKeysByRefusals(
  db: PrismaClient,
  sqlDb: SqlDb,
  range: TimeRange,
  limit = 50,
): Promise<(KeyView & { refused: number })[]> {
  // SUM of an integer column is a PostgreSQL bigint: a decimal string from pg.
  const { rows: counts } = await sqlDb.pool.query<{ api_key_id: string; refused: string }>(
    plannedEachRun(sql`SELECT api_key_id, SUM(count) AS refused FROM refused_requests
           WHERE api_key_id IS NOT NULL AND minute >= ${range.from} AND minute < ${range.to}
             AND NOT (status >= 500 AND status <> 503)
           GROUP BY api_key_id ORDER BY 2 DESC, api_key_id LIMIT ${Math.min(Math.max(limit, 1), 200)}`),
  );
  if (counts.length === 0) return [];
  const keys = await db.apiKey.findMany({ where: { id: { in: counts.map((row) => row.api_key_id) } }, include: KEY_INCLUDE });
  const byId = new Map(keys.map((key) => [key.id, key]));
  return counts.flatMap((row) => {
    const key = byId.get(row.api_key_id);
    return key ? [{ ...toKeyView(key), refused: Number(row.refused) }] : [];
  });
}
