import { MarginChart } from '@/components/charts/margin-charts';
import { Card, Stat } from '@/components/ui/card';
import { DataTable } from '@/components/ui/data-table';
import { counted, formatMoney, formatNumber } from '@/components/ui/format';
import type { MarginFigures, MarginReport } from '@/server/trpc/outputs';

// Revenue, provider cost and margin of a range (the overview, a package, a key): totals, a chart
// by day (or hour) and a table by operation, an operation that lost money marked. Failed calls'
// cost, the unpriced calls and the estimated cost (providers that report no usage) are shown
// beside, never folded in silently.

const pct = (f: MarginFigures) => (f.margin_pct === null ? '—' : `${f.margin_pct.toFixed(2)} %`);

export function MarginPanel(props: {
  report: MarginReport & { currency: string; range: { label: string; bucket: 'hour' | 'day' } };
  title?: string;
}) {
  const { report } = props;
  const { totals, currency } = report;
  const money = (value: string) => formatMoney(value, currency);
  return (
    <Card title={props.title ?? 'Revenue, provider cost and margin'} id="margin">
      <div className="stats">
        <Stat label="Revenue" value={money(totals.revenue)} testId="margin-revenue" />
        <Stat label="Provider cost" value={money(totals.cost)} testId="margin-cost" />
        <Stat label="Cost of failed calls" value={money(totals.failed_cost)} testId="margin-failed-cost" />
        <Stat label="Margin" value={money(totals.margin)} testId="margin-margin" />
        <Stat label="Margin %" value={pct(totals)} testId="margin-pct" />
        <Stat label="Unpriced calls" value={formatNumber(totals.unpriced)} testId="margin-unpriced" />
        <Stat label="Estimated cost" value={money(totals.estimated_cost)} testId="margin-estimated-cost" />
      </div>
      {totals.estimated > 0 ? (
        <p className="hint" data-testid="margin-estimated-hint">
          {counted(totals.estimated, 'call was', 'calls were')} priced on an estimate of their usage (their provider reported none: tokens
          from the text, seconds from the media): {money(totals.estimated_cost)} of the cost above.
        </p>
      ) : null}
      {totals.no_unit_price > 0 ? (
        <p className="hint">
          {counted(totals.no_unit_price, 'charged call was', 'charged calls were')} sold by a package version without a unit price: not in
          revenue.
        </p>
      ) : null}
      <MarginChart
        data={report.by_bucket.map((b) => ({ at: b.at, revenue: Number(b.revenue), cost: Number(b.cost), margin: Number(b.margin) }))}
        bucket={report.range.bucket}
        currency={currency}
        label={`Revenue ${money(totals.revenue)}, provider cost ${money(totals.cost)}, margin ${money(totals.margin)} over ${report.range.label}.`}
      />
      <DataTable
        caption="Revenue, cost and margin by operation"
        rows={report.by_operation}
        rowKey={(row) => row.operation}
        empty={{ title: 'No calls in this range', hint: 'Charged and failed calls of the range are counted here.' }}
        columns={[
          {
            header: 'Operation',
            cell: (row) => (
              <>
                {row.operation}
                {row.loss ? (
                  <>
                    {' '}
                    <span className="badge badge-danger" data-testid={`loss-${row.operation}`}>
                      cost exceeds revenue
                    </span>
                  </>
                ) : null}
              </>
            ),
          },
          { header: 'Calls', cell: (row) => formatNumber(row.requests), numeric: true },
          { header: 'Revenue', cell: (row) => money(row.revenue), numeric: true },
          { header: 'Provider cost', cell: (row) => money(row.cost), numeric: true },
          { header: 'Failed calls’ cost', cell: (row) => money(row.failed_cost), numeric: true },
          { header: 'Margin', cell: (row) => money(row.margin), numeric: true },
          { header: 'Margin %', cell: pct, numeric: true },
          { header: 'Unpriced', cell: (row) => formatNumber(row.unpriced), numeric: true },
          { header: 'Estimated', cell: (row) => formatNumber(row.estimated), numeric: true },
        ]}
      />
    </Card>
  );
}
