import { formatMinor } from '../sales/money';
import { StatusBadge } from '../ui/badge';
import { Card } from '../ui/card';
import { DataTable } from '../ui/data-table';
import { formatDate, formatNumber } from '../ui/format';
import type { PortalSales } from '@/server/trpc/outputs';
import { PortalTopUp } from './portal-top-up';

const NO_TOP_UP: Record<NonNullable<PortalSales['noTopUpReason']>, string> = {
  selling_off: 'Top-ups are not on sale here now: ask the operator who sold you the key for more units.',
  none_offered: 'Your package offers no top-up here: ask the operator who sold you the key for more units.',
  key_not_active: 'Your key cannot be topped up while it is suspended.',
};

/** A receipt's state in words (the Sales page shows the operator the raw state). */
const RECEIPT_STATE: Record<string, string> = { partly_refunded: 'partly refunded' };

/** Top-up packs (where the package sells them) and the key's receipts, on Stripe's own pages. */
export function PortalPurchases({ sales }: { sales: PortalSales }) {
  return (
    <Card title="Top-ups and receipts" id="receipts">
      {sales.canTopUp && sales.currency ? (
        <PortalTopUp packs={sales.topUps} currency={sales.currency} />
      ) : (
        <p className="muted" data-testid="no-top-up">
          {NO_TOP_UP[sales.noTopUpReason ?? 'none_offered']}
        </p>
      )}
      <DataTable
        caption="Your purchases and their receipts"
        rows={sales.receipts}
        rowKey={(row) => row.id}
        empty={{ title: 'No purchases yet', hint: 'A key bought here and each top-up are listed with a link to its receipt.' }}
        columns={[
          { header: 'Paid', cell: (row) => <span className="nowrap">{formatDate(row.created_at)}</span> },
          { header: 'What', cell: (row) => (row.kind === 'top_up' ? 'Top-up' : 'Package') },
          {
            header: 'Units',
            cell: (row) =>
              row.units_taken_back > 0
                ? `${formatNumber(row.units)} (${formatNumber(row.units_taken_back)} taken back: refunded)`
                : formatNumber(row.units),
            numeric: true,
          },
          { header: 'Amount', cell: (row) => formatMinor(row.amount, row.currency), numeric: true },
          { header: 'State', cell: (row) => <StatusBadge status={row.state} label={RECEIPT_STATE[row.state]} /> },
          {
            header: 'Receipt',
            cell: (row) =>
              row.receipt_url ? (
                <a href={row.receipt_url} target="_blank" rel="noopener noreferrer">
                  Receipt
                  <span className="visually-hidden">
                    {' '}
                    of the {row.kind === 'top_up' ? 'top-up' : 'package'} paid {formatDate(row.created_at)}
                  </span>
                </a>
              ) : (
                '—'
              ),
          },
        ]}
      />
    </Card>
  );
}
