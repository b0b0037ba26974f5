import Link from 'next/link';
import { Card } from '@/components/ui/card';
import { DataTable } from '@/components/ui/data-table';
import { formatMoney, formatNumber } from '@/components/ui/format';
import type { MarginFigures } from '@/server/trpc/outputs';

// Packages and keys of a range sorted by margin (lowest first by default: what loses money on top).

type Sort = 'margin_asc' | 'margin_desc';

function SortLink(props: { sort: Sort; href: (sort: Sort) => string }) {
  const next: Sort = props.sort === 'margin_asc' ? 'margin_desc' : 'margin_asc';
  return (
    <Link href={props.href(next)} data-testid="margin-sort">
      Margin {props.sort === 'margin_asc' ? '↑ lowest first' : '↓ highest first'}
    </Link>
  );
}

const moneyColumns = <T extends MarginFigures>(currency: string) => [
  { header: 'Calls', cell: (row: T) => formatNumber(row.requests), numeric: true },
  { header: 'Revenue', cell: (row: T) => formatMoney(row.revenue, currency), numeric: true },
  { header: 'Provider cost', cell: (row: T) => formatMoney(row.cost, currency), numeric: true },
  { header: 'Failed calls’ cost', cell: (row: T) => formatMoney(row.failed_cost, currency), numeric: true },
  { header: 'Margin', cell: (row: T) => formatMoney(row.margin, currency), numeric: true },
  { header: 'Margin %', cell: (row: T) => (row.margin_pct === null ? '—' : `${row.margin_pct.toFixed(2)} %`), numeric: true },
  { header: 'Unpriced', cell: (row: T) => formatNumber(row.unpriced), numeric: true },
  { header: 'Estimated', cell: (row: T) => formatNumber(row.estimated), numeric: true },
];

const lossBadge = (loss: boolean) =>
  loss ? (
    <>
      {' '}
      <span className="badge badge-danger">cost exceeds revenue</span>
    </>
  ) : null;

export function MarginRankings(props: {
  currency: string;
  sort: Sort;
  href: (sort: Sort) => string;
  packages: (MarginFigures & { slug: string; name: string; loss: boolean })[];
  keys: (MarginFigures & { id: string; prefix: string; label: string | null; package_slug: string; loss: boolean })[];
}) {
  return (
    <div className="grid">
      <Card title="Packages by margin">
        <SortLink sort={props.sort} href={props.href} />
        <DataTable
          caption="Packages by margin"
          rows={props.packages}
          rowKey={(row) => row.slug}
          empty={{ title: 'No calls in this range', hint: 'Packages whose keys made calls in the range are listed here.' }}
          columns={[
            {
              header: 'Package',
              cell: (row) => (
                <>
                  <Link href={`/packages/${row.slug}`}>{row.slug}</Link>
                  {lossBadge(row.loss)}
                </>
              ),
            },
            ...moneyColumns(props.currency),
          ]}
        />
      </Card>
      <Card title="Keys by margin">
        <SortLink sort={props.sort} href={props.href} />
        <DataTable
          caption="Keys by margin"
          rows={props.keys}
          rowKey={(row) => row.id}
          empty={{ title: 'No calls in this range', hint: 'Keys that made calls in the range are listed here.' }}
          columns={[
            {
              header: 'Key',
              cell: (row) => (
                <>
                  <Link href={`/keys/${row.id}`}>{row.label ?? `${row.prefix}…`}</Link> <code>{row.package_slug}</code>
                  {lossBadge(row.loss)}
                </>
              ),
            },
            ...moneyColumns(props.currency),
          ]}
        />
      </Card>
    </div>
  );
}
