import Link from 'next/link';
import { Alert } from '@/components/ui/card';
import { counted } from '@/components/ui/format';
import type { PurchaseView } from '@/server/trpc/outputs';

/**
 * A key whose purchase was refunded or disputed says so at the top of its page: a dispute has
 * suspended it until the operator decides, a refunded top-up's unspent units were taken back.
 */
export function SaleFlags({ purchases, status }: { purchases: PurchaseView[]; status: string }) {
  const suspended = status === 'suspended';
  const refunded = purchases.filter((p) => p.amount_refunded > 0).length;
  const disputed = purchases.filter((p) => p.disputed_at !== null).length;
  const reclaimed = purchases.reduce((sum, p) => sum + p.units_reclaimed, 0);
  if (refunded === 0 && disputed === 0 && !suspended) return null;
  const what = [refunded > 0 ? `${refunded} refunded` : null, disputed > 0 ? `${disputed} disputed` : null].filter(Boolean).join(' and ');
  return (
    <Alert tone="error">
      <span data-testid="sale-flags">
        {what ? `This key has ${what} ${refunded + disputed === 1 ? 'payment' : 'payments'} (see below and the ` : 'See the '}
        <Link href="/sales">Sales page</Link>
        {what ? ')' : ''}.{reclaimed > 0 ? ` ${reclaimed.toLocaleString('en-US')} unspent top-up units were taken back.` : ''}
        {suspended
          ? ' It is suspended: the API refuses it until you reinstate or revoke it (below).'
          : status === 'revoked'
            ? ' It is revoked.'
            : ' It is not revoked automatically: revoke it if its units should stop.'}
      </span>
    </Alert>
  );
}

/** The overview's notice of refunded, disputed and refused purchases and suspended keys, linking to the Sales page. */
export function SalesFlagsNotice(props: { refunded: number; disputed: number; refused: number; suspended: number }) {
  if (props.refunded + props.disputed + props.refused + props.suspended === 0) return null;
  return (
    <Alert tone={props.refused + props.suspended > 0 ? 'error' : 'warn'}>
      <span data-testid="sales-flags">
        {props.refunded} refunded and {props.disputed} disputed {props.refunded + props.disputed === 1 ? 'purchase' : 'purchases'}
        {props.refused > 0 ? `, ${counted(props.refused, 'payment', 'payments')} refused (not the amount asked: refund it)` : ''}
        {props.suspended > 0 ? `, ${counted(props.suspended, 'key', 'keys')} suspended until you decide` : ''}: see{' '}
        <Link href="/sales">Sales</Link> and the keys they bought.
      </span>
    </Alert>
  );
}
