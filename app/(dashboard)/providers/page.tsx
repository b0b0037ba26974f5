import type { Metadata } from 'next';
import Link from 'next/link';
import { failureText, KeyStatus } from '@/components/providers/key-status';
import { DataTable } from '@/components/ui/data-table';
import { formatNumber } from '@/components/ui/format';
import { PageHeader } from '@/components/ui/page-header';
import { dashboardCaller } from '@/app/(dashboard)/operator';

export const metadata: Metadata = { title: 'Providers' };

export default async function ProvidersPage() {
  const { caller, can } = await dashboardCaller('/providers');
  const providers = await caller.providers.overview();
  return (
    <div className="stack">
      <PageHeader
        title="Providers"
        description="The AI providers packages sell through (an engine is PROVIDER:MODEL). Calls, failures and p95 latency are of the last 24 hours."
        actions={
          can('admin') ? (
            <Link className="button" href="/providers/new">
              Add a provider
            </Link>
          ) : null
        }
      />
      <DataTable
        caption="Providers"
        rows={providers}
        rowKey={(row) => row.name}
        empty={{
          title: 'No providers yet: every engine is local',
          hint: can('admin') ? <Link href="/providers/new">Add the first provider</Link> : undefined,
        }}
        columns={[
          {
            header: 'Name',
            cell: (row) => (
              <Link href={`/providers/${row.name}`}>
                <code>{row.name}</code>
              </Link>
            ),
          },
          { header: 'Type', cell: (row) => row.type },
          {
            header: 'Base URL',
            cell: (row) =>
              row.base_url ? (
                <code>{row.base_url}</code>
              ) : (
                <span className="muted">default{row.default_base_url ? `: ${row.default_base_url}` : ''}</span>
              ),
          },
          { header: 'Key', cell: (row) => <KeyStatus provider={row} compact /> },
          { header: 'Serves', cell: (row) => row.operations.join(', ') || <span className="muted">nothing this version knows</span> },
          { header: 'Calls (24 h)', cell: (row) => formatNumber(row.health.calls), numeric: true },
          { header: 'Failures', cell: (row) => failureText(row.health.calls, row.health.failures), numeric: true },
          { header: 'p95', cell: (row) => (row.health.p95_ms === null ? '—' : `${formatNumber(row.health.p95_ms)} ms`), numeric: true },
        ]}
      />
    </div>
  );
}
