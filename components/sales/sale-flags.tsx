import Link from 'next/link';
import { Alert } from '@/components/ui/card';
import type { PurchaseView } from '@/server/domain/sales/list-purchases';

/** A key whose purchase was refunded or disputed says so at the top of its page. */
export function SaleFlags({ purchases }: { purchases: PurchaseView[] }) {
  const refunded = purchases.filter((p) => p.amount_refunded > 0).length;
  const disputed = purchases.filter((p) => p.disputed_at !== null).length;
  if (refunded === 0 && disputed === 0) return null;
  const what = [refunded > 0 ? `${refunded} refunded` : null, disputed > 0 ? `${disputed} disputed` : null].filter(Boolean).join(' and ');
  return (
    <Alert tone="error">
      <span data-testid="sale-flags">
        This key has {what} {refunded + disputed === 1 ? 'payment' : 'payments'} (see below and the <Link href="/sales">Sales page</Link>).
        It is not revoked automatically: revoke it if its units should stop.
      </span>
    </Alert>
  );
}

/** The overview's notice of refunded and disputed purchases (all time), linking to the Sales page. */
export function SalesFlagsNotice(props: { refunded: number; disputed: number }) {
  if (props.refunded === 0 && props.disputed === 0) return null;
  return (
    <Alert tone="warn">
      <span data-testid="sales-flags">
        {props.refunded} refunded and {props.disputed} disputed {props.refunded + props.disputed === 1 ? 'purchase' : 'purchases'}: see{' '}
        <Link href="/sales">Sales</Link> and the keys they bought.
      </span>
    </Alert>
  );
}
