import type { Metadata } from 'next';
import Link from 'next/link';
import { Card, EmptyState } from '@/components/ui/card';
import { StatusBadge } from '@/components/ui/badge';
import { DataTable } from '@/components/ui/data-table';
import { Filters, optionsOf } from '@/components/ui/filters';
import { formatDate, param, type SearchParams } from '@/components/ui/format';
import { jobUnits } from '@/components/jobs/job-units';
import { MonoId } from '@/components/ui/mono-id';
import { PageHeader } from '@/components/ui/page-header';
import { pageAt, Pager } from '@/components/ui/pager';
import { parseUsageFilters, usageRowHref } from '@/server/contract/dashboard/usage-filters';
import { JOB_STATUSES } from '@wgs/server/next';
import { dashboardCaller } from '@/app/(dashboard)/operator';

export const metadata: Metadata = { title: 'Jobs' };

// No operation filter: every job is a video generation (the Job's `operation` is always videos.generate).
const JOB_FILTERS = ['key', 'from', 'to'];

export default async function JobsPage({ searchParams }: { searchParams: SearchParams }) {
  const params = await searchParams;
  const { caller } = await dashboardCaller('/jobs');
  // The same per-field reading as the usage page: a value that cannot be read is named, and nothing is listed until it can.
  const { filters, invalid } = parseUsageFilters((name) => (JOB_FILTERS.includes(name) ? param(params, name) : undefined));
  const rawStatus = param(params, 'status');
  const status = param(params, 'status', JOB_STATUSES);
  const cursor = param(params, 'cursor');
  const query = { key: filters.key, status, from: filters.from, to: filters.to };
  const unreadable = Object.keys(invalid).length > 0 || Boolean(rawStatus && !status);
  const jobs = unreadable ? null : await pageAt((input) => caller.jobs.list(input), { ...query, cursor, limit: 50 });
  const filtered = Object.values(query).some(Boolean);
  return (
    <div className="stack">
      <PageHeader title="Jobs" description="Asynchronous video jobs, newest first. Dates are UTC." />
      <Filters
        action="/jobs"
        label="Filter jobs"
        fields={[
          {
            kind: 'search',
            name: 'key',
            label: 'Key',
            value: filters.key ?? param(params, 'key'),
            placeholder: 'prefix, label or id',
            error: invalid.key,
          },
          {
            kind: 'select',
            name: 'status',
            label: 'Status',
            value: status,
            options: optionsOf(JOB_STATUSES),
            error: rawStatus && !status ? `Status must be one of ${JOB_STATUSES.join(', ')}.` : undefined,
          },
          { kind: 'date', name: 'from', label: 'From', value: filters.from ?? param(params, 'from'), error: invalid.from },
          { kind: 'date', name: 'to', label: 'To (inclusive)', value: filters.to ?? param(params, 'to'), error: invalid.to },
        ]}
      />
      {jobs ? (
        <>
          <DataTable
            caption="Jobs"
            rows={jobs.items}
            rowKey={(row) => row.id}
            empty={
              filtered
                ? { title: 'No jobs match these filters', hint: <Link href="/jobs">Clear the filters</Link> }
                : { title: 'No jobs yet', hint: 'Jobs submitted to POST /v1/videos/generate appear here.' }
            }
            columns={[
              { header: 'Job', cell: (row) => <MonoId value={row.id} what="job id" href={`/jobs/${row.id}`} /> },
              { header: 'Status', cell: (row) => <StatusBadge status={row.status} /> },
              { header: 'Operation', cell: (row) => row.operation },
              { header: 'Units', cell: (row) => jobUnits(row), numeric: true },
              { header: 'Key', cell: (row) => <MonoId value={row.key_prefix} what="key prefix" href={`/keys/${row.api_key_id}`} full /> },
              {
                header: 'Request id',
                cell: (row) => <MonoId value={row.request_id} what="request id" href={usageRowHref(row.request_id)} head={8} tail={4} />,
              },
              { header: 'Created', cell: (row) => <span className="nowrap">{formatDate(row.created_at)}</span> },
              { header: 'Updated', cell: (row) => <span className="nowrap">{formatDate(row.updated_at)}</span> },
            ]}
          />
          <Pager path="/jobs" params={query} nextCursor={jobs.nextCursor} prevCursor={jobs.prevCursor} hasCursor={Boolean(cursor)} />
        </>
      ) : (
        <Card>
          <EmptyState title="Fix the filters above">
            <p>Nothing is listed while a filter cannot be read.</p>
          </EmptyState>
        </Card>
      )}
    </div>
  );
}
