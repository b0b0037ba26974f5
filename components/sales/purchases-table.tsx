import Link from 'next/link';
import { StatusBadge } from '@/components/ui/badge';
import { DataTable } from '@/components/ui/data-table';
import { formatDate, formatNumber } from '@/components/ui/format';
import { MonoId } from '@/components/ui/mono-id';
import type { PurchaseView } from '@/server/trpc/outputs';
import { formatMinor } from './money';

type Row = PurchaseView & { key_prefix?: string | null; key_status?: string | null; package_name?: string; package_version?: number };

/** Paid amount, with what was refunded of it. */
function amountOf(row: Row) {
  const paid = formatMinor(row.amount_paid ?? row.amount, row.currency);
  return row.amount_refunded > 0 ? `${paid} (${formatMinor(row.amount_refunded, row.currency)} refunded)` : paid;
}

/** What became of a disputed purchase's key: suspended until an operator decides, then as decided. */
const AFTER_DISPUTE: Record<string, string> = {
  suspended: 'key suspended by the dispute',
  active: 'key reinstated after the dispute',
  revoked: 'key revoked',
};

/** What the operator should know of a purchase beyond its state: why it was refused, units taken back, its key after a dispute. */
export function purchaseNote(row: Row, keyStatus: string | null | undefined): string {
  if (row.refusal) return `${row.refusal}: nothing issued; refund it in Stripe`;
  if (row.units_reclaimed > 0) return `${formatNumber(row.units_reclaimed)} unspent units taken back`;
  if (row.disputed_at) return AFTER_DISPUTE[keyStatus ?? ''] ?? 'disputed';
  return '—';
}

/** Purchases and top-ups with their Checkout Session, key, amount and state (the Sales page, a key's page). */
export function PurchasesTable(props: { rows: Row[]; caption: string; showKey?: boolean; keyStatus?: string }) {
  return (
    <DataTable
      caption={props.caption}
      rows={props.rows}
      rowKey={(row) => row.id}
      empty={{ title: 'No purchases yet', hint: 'Checkouts started at /buy appear here as they are paid, refunded or disputed.' }}
      columns={[
        { header: 'Created', cell: (row) => <span className="nowrap">{formatDate(row.created_at)}</span> },
        { header: 'Kind', cell: (row) => (row.kind === 'top_up' ? 'top-up' : 'package') },
        ...(props.showKey
          ? [
              {
                header: 'Key',
                cell: (row: Row) =>
                  row.api_key_id ? (
                    <Link href={`/keys/${row.api_key_id}`}>
                      <code>{row.key_prefix ?? row.api_key_id.slice(0, 8)}…</code>
                    </Link>
                  ) : (
                    '—'
                  ),
              },
              { header: 'Package', cell: (row: Row) => (row.package_name ? `${row.package_name} v${row.package_version}` : '—') },
            ]
          : []),
        { header: 'Units', cell: (row) => formatNumber(row.units), numeric: true },
        { header: 'Amount', cell: (row) => <span className="nowrap">{amountOf(row)}</span>, numeric: true },
        { header: 'State', cell: (row) => <StatusBadge status={row.state} /> },
        { header: 'Note', cell: (row) => purchaseNote(row, row.key_status ?? props.keyStatus) },
        { header: 'Buyer', cell: (row) => row.buyer_email ?? '—' },
        {
          header: 'Checkout Session',
          cell: (row) => (row.stripe_session_id ? <MonoId value={row.stripe_session_id} what="Checkout Session id" /> : '—'),
        },
        {
          header: 'Receipt',
          cell: (row) =>
            row.receipt_url ? (
              <a href={row.receipt_url} rel="noreferrer noopener" target="_blank">
                receipt
              </a>
            ) : (
              '—'
            ),
        },
      ]}
    />
  );
}
