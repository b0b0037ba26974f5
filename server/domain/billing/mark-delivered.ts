import sql from 'sql-template-tag';
import type { SqlDb } from '../../db/client';
import { ApiError } from '../errors';
import { meteringJson, type Metering } from './provider-cost';
import { prepared } from './sql-statement';

// Output delivered is output paid for (CONTRACT.md §8), even when the process dies: before a
// streamed answer's first delta is written to the client, its hold is marked delivered by one
// durable statement. From then on a request that dies leaves a hold the sweeper captures
// (sweep-expired-holds.ts) instead of returning; a request that lives settles it as before.

/** Who is answering when the first delta is ready: what the sweeper's usage event records. */
export interface Delivery {
  /** The engine answering. */
  engine: string;
  /** Every engine called for the request so far, in order (fallbacks), the answering one last. */
  enginesTried: readonly string[];
  /** What the call has used by then, as far as it is known (an estimate). */
  metering?: Metering;
}

/**
 * Marks a held hold delivered; throws when it is no longer held (its lease ran out and the
 * sweeper returned it), so that nothing is written to a client whose units are back.
 */
export async function markDelivered(db: SqlDb, holdId: string, delivery: Delivery): Promise<void> {
  const { rowCount } = await db.pool.query(
    prepared(
      'wgs-mark-delivered',
      sql`UPDATE unit_holds SET delivered_at = now(), delivered_engine = ${delivery.engine}::text,
                 delivered_engines_tried = ${delivery.enginesTried}::text[], delivered_metering = ${meteringJson(delivery.metering)}::jsonb
           WHERE id = ${holdId}::uuid AND status = 'held'`,
    ),
  );
  if (rowCount !== 1) throw new ApiError('provider_unavailable', { retryAfter: 1 });
}
