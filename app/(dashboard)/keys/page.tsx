import type { Metadata } from 'next';
import Link from 'next/link';
import { StatusBadge } from '@/components/ui/badge';
import { DataTable } from '@/components/ui/data-table';
import { Filters, Pager } from '@/components/ui/filters';
import { formatDate, formatNumber, param, type SearchParams } from '@/components/ui/format';
import { PageHeader } from '@/components/ui/page-header';
import type { KeyView } from '@/server/domain/keys/key-view';
import { isUuid } from '@/server/domain/uuid';
import { dashboardCaller } from '@/server/trpc/server-caller';

export const metadata: Metadata = { title: 'API keys' };

type KeyRow = KeyView;


export default async function KeysPage({ searchParams }: { searchParams: SearchParams }) {
  const params = await searchParams;
  const { caller } = await dashboardCaller('/keys');
  const filters = {
    search: param(params, 'q')?.slice(0, 200),
    status: param(params, 'status', ['active', 'revoked'] as const),
    packageSlug: param(params, 'package')?.slice(0, 63),
  };
  const cursor = param(params, 'cursor');
  const byRefusals = param(params, 'sort', ['refusals'] as const) === 'refusals';
  const [keys, packages, refused] = await Promise.all([
    caller.keys.list({ ...filters, cursor: cursor && isUuid(cursor) ? cursor : undefined, limit: 50 }),
    caller.packages.list(),
    byRefusals ? caller.refusals.keys({ range: '14d', limit: 50 }) : undefined,
  ]);
  return (
    <div className="stack">
      <PageHeader
        title="API keys"
        description="Each key is locked to one package version. Search by label, prefix (wgs_live_…) or id."
        actions={<Link className="button" href="/keys/new">Issue a key</Link>}
      />
      <Filters
        action="/keys"
        label="Filter keys"
        fields={[
          { kind: 'search', name: 'q', label: 'Search', value: filters.search, placeholder: 'label, prefix or id' },
          { kind: 'select', name: 'status', label: 'Status', value: filters.status, options: [{ value: 'active', label: 'active' }, { value: 'revoked', label: 'revoked' }] },
          { kind: 'select', name: 'package', label: 'Package', value: filters.packageSlug, options: packages.map((pkg) => ({ value: pkg.slug, label: pkg.name })) },
        ]}
      />
      <p>
        {byRefusals ? (
          <>Keys with the most refused requests in the last 14 days first (keys with none are not listed). <Link href="/keys">Newest first</Link></>
        ) : (
          <Link href="/keys?sort=refusals">Sort by refusals (last 14 days)</Link>
        )}
      </p>
      <DataTable
        caption="API keys"
        rows={(refused ?? keys.items) as (KeyRow & { refused?: number })[]}
        rowKey={(row) => row.id}
        empty={{ title: filters.search || filters.status || filters.packageSlug ? 'No keys match these filters' : 'No keys yet', hint: <Link href="/keys/new">Issue the first key</Link> }}
        columns={[
          { header: 'Key', cell: (row) => <Link href={`/keys/${row.id}`}><code>{row.prefix}…</code></Link> },
          { header: 'Label', cell: (row) => row.label ?? <span className="muted">—</span> },
          { header: 'Status', cell: (row) => <StatusBadge status={row.status} /> },
          { header: 'Package', cell: (row) => `${row.package} v${row.package_version}` },
          { header: 'Remaining units', cell: (row) => formatNumber(row.remaining_units), numeric: true },
          { header: 'Last used', cell: (row) => formatDate(row.last_used_at) },
          { header: 'Created', cell: (row) => formatDate(row.created_at) },
          ...(refused ? [{ header: 'Refused (14 days)', cell: (row: KeyRow & { refused?: number }) => formatNumber(row.refused ?? 0), numeric: true }] : []),
        ]}
      />
      {byRefusals ? null : <Pager path="/keys" params={{ q: filters.search, status: filters.status, package: filters.packageSlug }} nextCursor={keys.nextCursor} hasCursor={Boolean(cursor)} />}
    </div>
  );
}
