import type { Metadata } from 'next';
import Link from 'next/link';
import { StatusBadge } from '@/components/ui/badge';
import { DataTable } from '@/components/ui/data-table';
import { Filters, optionsOf } from '@/components/ui/filters';
import { Pager } from '@/components/ui/pager';
import { formatDate, formatNumber, param, type SearchParams } from '@/components/ui/format';
import { PageHeader } from '@/components/ui/page-header';
import { JOB_STATUSES } from '@/server/domain/reports/jobs';
import { dashboardCaller } from '@/server/trpc/server-caller';

export const metadata: Metadata = { title: 'Jobs' };

export default async function JobsPage({ searchParams }: { searchParams: SearchParams }) {
  const params = await searchParams;
  const { caller } = await dashboardCaller('/jobs');
  const status = param(params, 'status', JOB_STATUSES);
  const cursor = param(params, 'cursor');
  const jobs = await caller.jobs.list({ status, cursor, limit: 50 }).catch(() => caller.jobs.list({ status, limit: 50 }));
  return (
    <div className="stack">
      <PageHeader title="Jobs" description="Asynchronous video jobs, newest first." />
      <Filters action="/jobs" label="Filter jobs" fields={[{ kind: 'select', name: 'status', label: 'Status', value: status, options: optionsOf(JOB_STATUSES) }]} />
      <DataTable
        caption="Jobs"
        rows={jobs.items}
        rowKey={(row) => row.id}
        empty={{ title: status ? `No ${status} jobs` : 'No jobs yet', hint: 'Jobs submitted to POST /v1/videos/generate appear here.' }}
        columns={[
          { header: 'Job', cell: (row) => <Link href={`/jobs/${row.id}`}><code>{row.id}</code></Link> },
          { header: 'Status', cell: (row) => <StatusBadge status={row.status} /> },
          { header: 'Operation', cell: (row) => row.operation },
          { header: 'Units', cell: (row) => formatNumber(row.units), numeric: true },
          { header: 'Key', cell: (row) => <Link href={`/keys/${row.api_key_id}`}><code>{row.key_prefix}…</code></Link> },
          { header: 'Created', cell: (row) => formatDate(row.created_at) },
          { header: 'Updated', cell: (row) => formatDate(row.updated_at) },
        ]}
      />
      <Pager path="/jobs" params={{ status }} nextCursor={jobs.nextCursor} hasCursor={Boolean(cursor)} />
    </div>
  );
}
