import type { Metadata } from 'next';
import Link from 'next/link';
import { FailedByOperationChart, RefusedByCodeChart, TrafficChart } from '@/components/charts/traffic-charts';
import { StatusBadge } from '@/components/ui/badge';
import { Card, Stat } from '@/components/ui/card';
import { DataTable } from '@/components/ui/data-table';
import { formatDate, formatNumber, type SearchParams } from '@/components/ui/format';
import { PageHeader } from '@/components/ui/page-header';
import { rangeFromParams, TimeRangePicker } from '@/components/ui/time-range-picker';
import { MarginPanel } from '@/components/margin/margin-panel';
import { MarginRankings } from '@/components/margin/margin-rankings';
import { SalesFlagsNotice } from '@/components/sales/sale-flags';
import { dashboardCaller } from '@/app/(dashboard)/operator';

// The layout's title template applies to the pages below it, not to this one beside it.
export const metadata: Metadata = { title: { absolute: 'Overview · Workflow Generation Service' } };

export default async function OverviewPage({ searchParams }: { searchParams: SearchParams }) {
  const params = await searchParams;
  const asked = rangeFromParams(params);
  const range = asked.value;
  const sort = params.margin_sort === 'margin_desc' ? 'margin_desc' : 'margin_asc';
  const { caller } = await dashboardCaller('/');
  const [overview, margin, marginPackages, marginKeys, saleFlags, unpricedBudgets] = await Promise.all([
    caller.refusals.overview(range),
    caller.margin.report(range),
    caller.margin.packages({ ...range, sort }),
    caller.margin.keys({ ...range, sort }),
    caller.sales.flags(),
    caller.margin.unpricedBudgets(),
  ]);
  const kept = Object.entries(range).filter((entry): entry is [string, string] => typeof entry[1] === 'string');
  const sortHref = (next: string) => `/?${new URLSearchParams([...kept, ['margin_sort', next]]).toString()}#margin`;
  const { totals } = overview;
  return (
    <div className="stack">
      <PageHeader
        title="Overview"
        description={`API traffic over ${overview.range.label}. Refused requests never reached an engine (bad input, key, scope, rate or quota); their counts reach this page within a few seconds.`}
      />
      <SalesFlagsNotice {...saleFlags} />
      {unpricedBudgets.length > 0 ? (
        <Card title="Budgets that cannot count every engine">
          <p>
            These packages set <code>max_provider_cost_per_day</code> but name an engine without a known price: its calls add nothing to the
            day&apos;s cost, so the budget does not hold for them. Set the price, or save the package again.
          </p>
          <ul data-testid="unpriced-budgets">
            {unpricedBudgets.flatMap((pkg) =>
              pkg.unpriced.map((engine) => (
                <li key={`${pkg.slug}-${engine.operation}-${engine.engine}`}>
                  <Link href={`/packages/${pkg.slug}`}>{pkg.slug}</Link>: <code>{engine.engine}</code> ({engine.operation}) needs{' '}
                  <code>{engine.missing}</code>
                </li>
              )),
            )}
          </ul>
        </Card>
      ) : null}
      <TimeRangePicker action="/" range={asked} />
      <div className="stats">
        <Stat label="Requests" value={formatNumber(totals.requests)} testId="total-requests" />
        <Stat label="Succeeded" value={formatNumber(totals.succeeded)} testId="total-succeeded" />
        <Stat label="Failed (provider)" value={formatNumber(totals.failed_provider)} testId="total-failed-provider" />
        <Stat label="Failed (server)" value={formatNumber(totals.failed_server)} testId="total-failed-server" />
        <Stat label="Left by client" value={formatNumber(totals.left_by_client)} testId="total-left-by-client" />
        <Stat label="Refused" value={formatNumber(totals.refused)} testId="total-refused" />
        <Stat label="Units charged" value={formatNumber(totals.units)} testId="total-units" />
        <Stat label="Active keys" value={formatNumber(totals.active_keys)} />
      </div>
      <Card title={overview.range.bucket === 'hour' ? 'Requests per hour' : 'Requests per day'}>
        <TrafficChart
          data={overview.buckets}
          bucket={overview.range.bucket}
          label={`Succeeded ${totals.succeeded}, failed ${totals.failed_provider + totals.failed_server}, left by client ${totals.left_by_client}, refused ${totals.refused} over ${overview.range.label}.`}
        />
      </Card>
      <MarginPanel report={margin} />
      <MarginRankings currency={margin.currency} sort={sort} href={sortHref} packages={marginPackages} keys={marginKeys} />
      <div className="grid">
        <Card title="Refused by code">
          {overview.refused_by_code.length > 0 ? (
            <RefusedByCodeChart data={overview.refused_by_code} label={`${totals.refused} refused requests by status and error code.`} />
          ) : null}
          <DataTable
            caption="Refused requests by code"
            rows={overview.refused_by_code}
            rowKey={(row) => `${row.status}-${row.code}`}
            empty={{ title: 'No refused requests', hint: 'Requests turned away before an engine (400-429, 503) are counted here.' }}
            columns={[
              { header: 'Status', cell: (row) => row.status, numeric: true },
              { header: 'Code', cell: (row) => <code>{row.code}</code> },
              { header: 'Requests', cell: (row) => formatNumber(row.count), numeric: true },
            ]}
          />
        </Card>
        <Card title="Failed by operation">
          {overview.failed_by_operation.length > 0 ? (
            <FailedByOperationChart
              data={overview.failed_by_operation}
              label="Failed requests per operation: the provider's failures and the server's own."
            />
          ) : null}
          <DataTable
            caption="Failed requests by operation"
            rows={overview.failed_by_operation}
            rowKey={(row) => row.operation}
            empty={{ title: 'No failures', hint: 'Requests that an engine or the server failed are counted here.' }}
            columns={[
              { header: 'Operation', cell: (row) => row.operation },
              { header: 'Provider', cell: (row) => formatNumber(row.provider), numeric: true },
              { header: 'Server', cell: (row) => formatNumber(row.server), numeric: true },
            ]}
          />
        </Card>
      </div>
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
