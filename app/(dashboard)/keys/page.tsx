import type { Metadata } from 'next';
import Link from 'next/link';
import { UnitsBar } from '@/components/keys/units-bar';
import { StatusBadge } from '@/components/ui/badge';
import { DataTable, type Column } from '@/components/ui/data-table';
import { Filters } from '@/components/ui/filters';
import { formatBytes, formatDate, formatExpiry, formatNumber, param, type SearchParams } from '@/components/ui/format';
import { MonoId } from '@/components/ui/mono-id';
import { PageHeader } from '@/components/ui/page-header';
import { pageAt, Pager } from '@/components/ui/pager';
import { SHOWN_KEY_STATUSES } from '@/server/contract/dashboard/key-status';
import type { KeyView } from '@/server/trpc/outputs';
import { dashboardCaller } from '@/app/(dashboard)/operator';

export const metadata: Metadata = { title: 'API keys' };

/** A key, with its refused requests when the list is sorted by them. */
type KeyRow = KeyView & { refused?: number };

/** The list's columns: a section (e.g. refusals) slots in as one more entry. */
const KEY_COLUMNS: Column<KeyRow>[] = [
  { header: 'Key', cell: (row) => <MonoId value={row.prefix} what="key prefix" href={`/keys/${row.id}`} full /> },
  { header: 'Label', cell: (row) => row.label ?? <span className="muted">—</span> },
  { header: 'Status', cell: (row) => <StatusBadge status={row.status} /> },
  { header: 'Package', cell: (row) => <Link href={`/packages/${row.package}`}>{`${row.package} v${row.package_version}`}</Link> },
  { header: 'Remaining units', cell: (row) => <UnitsBar remaining={row.remaining_units} total={row.total_units} />, numeric: true },
  { header: 'Stored', cell: (row) => <span className="nowrap">{formatBytes(row.stored_bytes)}</span>, numeric: true },
  {
    header: 'Expires',
    cell: (row) => <span className="nowrap">{row.expires_at ? formatExpiry(row.expires_at) : <span className="muted">never</span>}</span>,
  },
  { header: 'Last used', cell: (row) => <span className="nowrap">{formatDate(row.last_used_at)}</span> },
  { header: 'Created', cell: (row) => <span className="nowrap">{formatDate(row.created_at)}</span> },
];

export default async function KeysPage({ searchParams }: { searchParams: SearchParams }) {
  const params = await searchParams;
  const { caller, can } = await dashboardCaller('/keys');
  const filters = {
    search: param(params, 'q')?.slice(0, 200),
    status: param(params, 'status', SHOWN_KEY_STATUSES),
    packageSlug: param(params, 'package')?.slice(0, 63),
  };
  const cursor = param(params, 'cursor');
  const byRefusals = param(params, 'sort', ['refusals'] as const) === 'refusals';
  const [keys, packages, refused] = await Promise.all([
    pageAt((input) => caller.keys.list(input), { ...filters, cursor, limit: 50 }),
    caller.packages.list(),
    byRefusals ? caller.refusals.keys({ range: '14d', limit: 50 }) : undefined,
  ]);
  const filtered = Boolean(filters.search || filters.status || filters.packageSlug);
  // A value the select cannot show is said so next to it, rather than shown as "All" while it filters.
  const rawStatus = param(params, 'status');
  const unknownPackage = filters.packageSlug && !packages.some((pkg) => pkg.slug === filters.packageSlug);
  // With filters, "no rows" means no match, not that there are no keys.
  const empty = filtered
    ? {
        title: filters.search ? `No keys match “${filters.search}”` : 'No keys match these filters',
        hint: <Link href="/keys">Clear the filters</Link>,
      }
    : { title: 'No keys yet', hint: can('admin') ? <Link href="/keys/new">Issue the first key</Link> : undefined };
  return (
    <div className="stack">
      <PageHeader
        title="API keys"
        description="Each key is locked to one package version. Search by label, prefix (wgs_live_…), id or buyer e-mail."
        actions={
          can('admin') ? (
            <Link className="button" href="/keys/new">
              Issue a key
            </Link>
          ) : null
        }
      />
      <Filters
        action="/keys"
        label="Filter keys"
        fields={[
          { kind: 'search', name: 'q', label: 'Search', value: filters.search, placeholder: 'label, prefix, id or e-mail' },
          {
            kind: 'select',
            name: 'status',
            label: 'Status',
            value: filters.status,
            options: SHOWN_KEY_STATUSES.map((status) => ({ value: status, label: status })),
            error: rawStatus && !filters.status ? `Status must be one of ${SHOWN_KEY_STATUSES.join(', ')}.` : undefined,
          },
          {
            kind: 'select',
            name: 'package',
            label: 'Package',
            value: filters.packageSlug,
            // Names may repeat; slugs tell such packages apart.
            options: packages.map((pkg) => ({
              value: pkg.slug,
              label: packages.filter((other) => other.name === pkg.name).length > 1 ? `${pkg.name} (${pkg.slug})` : pkg.name,
            })),
            error: unknownPackage ? `No package is named “${filters.packageSlug}”.` : undefined,
          },
        ]}
      />
      <p>
        {byRefusals ? (
          <>
            Keys with the most refused requests in the last 14 days first (keys with none are not listed).{' '}
            <Link href="/keys">Newest first</Link>
          </>
        ) : (
          <Link href="/keys?sort=refusals">Sort by refusals (last 14 days)</Link>
        )}
      </p>
      <DataTable
        caption="API keys"
        rows={(refused ?? keys.items) as KeyRow[]}
        rowKey={(row) => row.id}
        empty={empty}
        columns={
          refused
            ? [...KEY_COLUMNS, { header: 'Refused (14 days)', cell: (row) => formatNumber(row.refused ?? 0), numeric: true }]
            : KEY_COLUMNS
        }
      />
      {byRefusals ? null : (
        <Pager
          path="/keys"
          params={{ q: filters.search, status: filters.status, package: filters.packageSlug }}
          nextCursor={keys.nextCursor}
          prevCursor={keys.prevCursor}
          hasCursor={Boolean(cursor)}
        />
      )}
    </div>
  );
}
