import type { Metadata } from 'next';
import Link from 'next/link';
import { ErrorRateChart, RequestsPerOperationChart, UnitsPerDayChart } from '@/components/charts/usage-charts';
import { StatusBadge } from '@/components/ui/badge';
import { Card, Stat } from '@/components/ui/card';
import { DataTable } from '@/components/ui/data-table';
import { formatDate, formatNumber, formatPercent } from '@/components/ui/format';
import { PageHeader } from '@/components/ui/page-header';
import { dashboardCaller } from '@/server/trpc/server-caller';

export const metadata: Metadata = { title: 'Overview' };

export default async function OverviewPage() {
  const { caller } = await dashboardCaller('/');
  const overview = await caller.overview.get({ days: 14 });
  const { totals } = overview;
  return (
    <div className="stack">
      <PageHeader title="Overview" description={`The last ${overview.days} days of API traffic (UTC days).`} />
      <div className="stats">
        <Stat label="Requests" value={formatNumber(totals.requests)} testId="total-requests" />
        <Stat label="Units charged" value={formatNumber(totals.units)} testId="total-units" />
        <Stat label="Error rate" value={formatPercent(totals.error_rate)} />
        <Stat label="Active keys" value={formatNumber(totals.active_keys)} />
      </div>
      <div className="grid">
        <Card title="Units used per day">
          <UnitsPerDayChart data={overview.daily} label={`Units charged per day; ${formatNumber(totals.units)} in total.`} />
        </Card>
        <Card title="Error rate per day">
          <ErrorRateChart
            data={overview.daily}
            label={`Share of failed requests per day; ${formatPercent(totals.error_rate)} over the period.`}
          />
        </Card>
      </div>
      <Card title="Requests per operation">
        {overview.operations.length > 0 ? (
          <RequestsPerOperationChart data={overview.operations} label="Succeeded and failed requests per operation." />
        ) : null}
        <DataTable
          caption="Requests per operation"
          rows={overview.operations}
          rowKey={(row) => row.operation}
          empty={{ title: 'No requests yet', hint: 'Requests made with an API key appear here.' }}
          columns={[
            { header: 'Operation', cell: (row) => row.operation },
            { header: 'Requests', cell: (row) => formatNumber(row.requests), numeric: true },
            { header: 'Failed', cell: (row) => formatNumber(row.failed), numeric: true },
            { header: 'Error rate', cell: (row) => formatPercent(row.error_rate), numeric: true },
            { header: 'Units', cell: (row) => formatNumber(row.units), numeric: true },
          ]}
        />
      </Card>
      <Card title="Recent failures">
        <DataTable
          caption="Recent failed requests"
          rows={overview.recent_failures}
          rowKey={(row) => row.id}
          empty={{ title: 'No failures', hint: 'Failed requests that reached an engine are listed here.' }}
          columns={[
            { header: 'When', cell: (row) => formatDate(row.created_at) },
            { header: 'Operation', cell: (row) => row.operation },
            { header: 'Error', cell: (row) => <code>{row.error_code ?? 'unknown'}</code> },
            { header: 'Key', cell: (row) => <Link href={`/keys/${row.api_key_id}`}>{row.key_prefix}…</Link> },
            { header: 'Outcome', cell: (row) => <StatusBadge status={row.outcome} /> },
            { header: 'Request', cell: (row) => <code>{row.request_id}</code> },
          ]}
        />
      </Card>
    </div>
  );
}
