import type { Purchase, PrismaClient } from '../../db/generated/client';
import { afterPosition, decodeCursor, encodeCursor } from '../pagination';

// Purchases as the dashboard and the customer portal show them (no secret, ever).

export interface PurchaseView {
  id: string;
  kind: 'package' | 'top_up';
  status: 'open' | 'fulfilled' | 'expired' | 'refused';
  /** disputed, then refunded (in part or whole), win over paid; expired and refused are final. */
  state: 'open' | 'paid' | 'refunded' | 'partly_refunded' | 'disputed' | 'expired' | 'refused';
  api_key_id: string | null;
  units: number;
  amount: number;
  amount_paid: number | null;
  amount_refunded: number;
  currency: string;
  stripe_session_id: string | null;
  buyer_email: string | null;
  stripe_customer_id: string | null;
  receipt_url: string | null;
  created_at: string;
  fulfilled_at: string | null;
  refunded_at: string | null;
  disputed_at: string | null;
  expires_at: string | null;
  /** Why fulfilment refused (state refused). */
  refusal: string | null;
  /** A refunded top-up's units taken back from its key. */
  units_reclaimed: number;
}

export function purchaseState(purchase: Purchase): PurchaseView['state'] {
  if (purchase.status === 'expired' || purchase.status === 'refused') return purchase.status;
  if (purchase.disputedAt) return 'disputed';
  if (purchase.amountRefunded > 0)
    return purchase.amountPaid !== null && purchase.amountRefunded < purchase.amountPaid ? 'partly_refunded' : 'refunded';
  return purchase.status === 'fulfilled' ? 'paid' : 'open';
}

export function toPurchaseView(purchase: Purchase): PurchaseView {
  return {
    id: purchase.id,
    kind: purchase.kind,
    status: purchase.status,
    state: purchaseState(purchase),
    api_key_id: purchase.apiKeyId,
    units: purchase.units,
    amount: purchase.amount,
    amount_paid: purchase.amountPaid,
    amount_refunded: purchase.amountRefunded,
    currency: purchase.currency,
    stripe_session_id: purchase.stripeSessionId,
    buyer_email: purchase.buyerEmail,
    stripe_customer_id: purchase.stripeCustomerId,
    receipt_url: purchase.receiptUrl,
    created_at: purchase.createdAt.toISOString(),
    fulfilled_at: purchase.fulfilledAt?.toISOString() ?? null,
    refunded_at: purchase.refundedAt?.toISOString() ?? null,
    disputed_at: purchase.disputedAt?.toISOString() ?? null,
    expires_at: purchase.expiresAt?.toISOString() ?? null,
    refusal: purchase.refusal,
    units_reclaimed: purchase.unitsReclaimed,
  };
}

/** The paid purchases and top-ups of one key, newest first, with Stripe's receipt URLs. */
export async function listPurchasesForKey(db: PrismaClient, keyId: string): Promise<PurchaseView[]> {
  const purchases = await db.purchase.findMany({
    where: { apiKeyId: keyId, status: 'fulfilled' },
    orderBy: { createdAt: 'desc' },
    take: 200,
  });
  return purchases.map(toPurchaseView);
}

/** Every purchase (open ones too), newest first, a page at a time (keyset cursor). */
export async function listPurchases(db: PrismaClient, input: { limit: number; cursor?: string }) {
  const position = decodeCursor(input.cursor);
  const purchases = await db.purchase.findMany({
    where: afterPosition(position ? { ...position, before: false } : undefined),
    orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
    take: input.limit + 1,
    include: { apiKey: { select: { prefix: true, status: true } }, packageVersion: { select: { name: true, version: true } } },
  });
  const page = purchases.slice(0, input.limit);
  return {
    items: page.map((purchase) => ({
      ...toPurchaseView(purchase),
      key_prefix: purchase.apiKey?.prefix ?? null,
      key_status: purchase.apiKey?.status ?? null,
      package_name: purchase.packageVersion.name,
      package_version: purchase.packageVersion.version,
    })),
    next_cursor: purchases.length > input.limit ? encodeCursor(page.at(-1)!) : null,
  };
}

/** Refunded, disputed and refused purchases, and keys suspended now: flagged on the overview and the Sales page. */
export async function salesFlags(db: PrismaClient) {
  const [refunded, disputed, refused, suspended] = await Promise.all([
    db.purchase.count({ where: { amountRefunded: { gt: 0 } } }),
    db.purchase.count({ where: { disputedAt: { not: null } } }),
    db.purchase.count({ where: { status: 'refused' } }),
    db.apiKey.count({ where: { status: 'suspended' } }),
  ]);
  return { refunded, disputed, refused, suspended };
}
