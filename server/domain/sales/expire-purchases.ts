import sql from 'sql-template-tag';
import type { SqlDb } from '../../db/client';
import type { PrismaClient } from '../../db/generated/client';
import { prepared } from '../../db/named-statement';

// A purchase lives as long as its Checkout Session: Stripe's checkout.session.expired closes it,
// and the housekeeping sweep closes any still open after the session's expires_at (a lost event).
// An expired purchase is never asked about again; if Stripe still reports its session paid (a
// payment completed at the last moment), that word wins and it is fulfilled.

/** Sessions created before expires_at was kept expire on Stripe's default, a day after creation. */
const DEFAULT_SESSION_HOURS = 24;

export async function expirePurchase(
  db: PrismaClient,
  sessionId: string,
): Promise<{ state: 'expired' | 'unchanged'; purchaseId: string } | { state: 'unknown' }> {
  const purchase = await db.purchase.findUnique({ where: { stripeSessionId: sessionId }, select: { id: true } });
  if (!purchase) return { state: 'unknown' };
  const moved = await db.purchase.updateMany({
    where: { id: purchase.id, status: 'open' },
    data: { status: 'expired', expiredAt: new Date() },
  });
  return { state: moved.count > 0 ? 'expired' : 'unchanged', purchaseId: purchase.id };
}

/** Housekeeping: open purchases whose session's expires_at has passed, a batch at a time. */
export async function expireOverduePurchases(db: SqlDb, now = new Date(), batch = 500): Promise<number> {
  const legacyCutoff = new Date(now.getTime() - DEFAULT_SESSION_HOURS * 3_600_000);
  const { rowCount } = await db.pool.query(
    prepared(
      'wgs-purchases-expire-overdue',
      sql`UPDATE purchases SET status = 'expired', expired_at = ${now}
           WHERE id IN (
             SELECT id FROM purchases
              WHERE status = 'open' AND (expires_at < ${now} OR (expires_at IS NULL AND created_at < ${legacyCutoff}))
              LIMIT ${batch} FOR UPDATE SKIP LOCKED)`,
    ),
  );
  return rowCount ?? 0;
}
