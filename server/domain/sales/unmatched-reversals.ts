import sql from 'sql-template-tag';
import type { SqlDb } from '../../db/client';
import { prepared } from '../../db/named-statement';

// A refund or dispute of a payment intent no purchase of this service names (a shared Stripe
// account's other sales) is kept in payment_reversals, in case its purchase's fulfilment comes
// later (Stripe delivers in any order). A checkout lives a day and a delayed payment settles within
// two weeks, so past 30 days no purchase will claim it: it is deleted, and the table does not grow
// for ever with other people's refunds.

export const UNMATCHED_REVERSAL_DAYS = 30;

/** Housekeeping: reversals no purchase names, older than UNMATCHED_REVERSAL_DAYS, a batch at a time. */
export async function deleteUnmatchedReversals(db: SqlDb, now = new Date(), batch = 500): Promise<number> {
  const cutoff = new Date(now.getTime() - UNMATCHED_REVERSAL_DAYS * 86_400_000);
  const { rowCount } = await db.pool.query(
    prepared(
      'wgs-reversals-delete-unmatched',
      sql`DELETE FROM payment_reversals WHERE payment_intent_id IN (
            SELECT r.payment_intent_id FROM payment_reversals r
             WHERE r.created_at < ${cutoff}
               AND NOT EXISTS (SELECT 1 FROM purchases p WHERE p.payment_intent_id = r.payment_intent_id)
             LIMIT ${batch} FOR UPDATE SKIP LOCKED)`,
    ),
  );
  return rowCount ?? 0;
}
