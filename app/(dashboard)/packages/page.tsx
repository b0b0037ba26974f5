import type { Metadata } from 'next';
import Link from 'next/link';
import { StatusBadge } from '@/components/ui/badge';
import { DataTable } from '@/components/ui/data-table';
import { formatDate, formatNumber } from '@/components/ui/format';
import { PageHeader } from '@/components/ui/page-header';
import { dashboardCaller } from '@/app/(dashboard)/operator';

export const metadata: Metadata = { title: 'Packages' };

export default async function PackagesPage() {
  const { caller, can } = await dashboardCaller('/packages');
  const packages = await caller.packages.list();
  return (
    <div className="stack">
      <PageHeader
        title="Packages"
        description="What each key may call, with which settings and quota. Changing a package makes a new version; sold keys keep theirs."
        actions={
          can('admin') ? (
            <Link className="button" href="/packages/new">
              New package
            </Link>
          ) : null
        }
      />
      <DataTable
        caption="Packages"
        rows={packages}
        rowKey={(row) => row.slug}
        empty={{
          title: 'No packages yet',
          hint: (
            <>
              Create one here or apply a packages file with <code>npm run cli -- packages apply FILE</code>.
            </>
          ),
        }}
        columns={[
          {
            header: 'Package',
            cell: (row) => (
              <>
                <Link href={`/packages/${row.slug}`}>{row.name}</Link> {row.archived_at ? <StatusBadge status="archived" /> : null}
              </>
            ),
          },
          { header: 'Slug', cell: (row) => <code>{row.slug}</code> },
          { header: 'Latest version', cell: (row) => row.latest_version, numeric: true },
          { header: 'Quota (units)', cell: (row) => formatNumber(row.quota_units), numeric: true },
          { header: 'Operations', cell: (row) => row.operations.join(', ') },
          { header: 'Updated', cell: (row) => formatDate(row.updated_at) },
        ]}
      />
    </div>
  );
}
