import type { Metadata } from 'next';
import Link from 'next/link';
import { StatusBadge } from '@/components/ui/badge';
import { Alert } from '@/components/ui/card';
import { DataTable } from '@/components/ui/data-table';
import { Filters, optionsOf, Pager } from '@/components/ui/filters';
import { formatDate, formatNumber, param, type SearchParams } from '@/components/ui/format';
import { PageHeader } from '@/components/ui/page-header';
import { OPERATIONS } from '@/server/domain/operations';
import { usageFilters } from '@/server/trpc/routers/activity';
import { dashboardCaller } from '@/server/trpc/server-caller';

export const metadata: Metadata = { title: 'Usage' };

export default async function UsagePage({ searchParams }: { searchParams: SearchParams }) {
  const params = await searchParams;
  const { caller } = await dashboardCaller('/usage');
  const raw = {
    apiKeyId: param(params, 'key'),
    operation: param(params, 'operation', OPERATIONS),
    outcome: param(params, 'outcome', ['succeeded', 'failed'] as const),
    from: param(params, 'from'),
    to: param(params, 'to'),
  };
  const parsed = usageFilters.safeParse(raw);
  const filters = parsed.success ? parsed.data : {};
  const cursor = param(params, 'cursor');
  const events = await caller.usage.list({ ...filters, cursor, limit: 50 }).catch(() => caller.usage.list({ ...filters, limit: 50 }));
  const query = { key: filters.apiKeyId, operation: filters.operation, outcome: filters.outcome, from: filters.from, to: filters.to };
  const exportQuery = new URLSearchParams(Object.entries(query).filter((entry): entry is [string, string] => Boolean(entry[1]))).toString();
  return (
    <div className="stack">
      <PageHeader
        title="Usage"
        description="One event per request that reached an engine: what it cost and how it ended. Dates are UTC."
        actions={<a className="button button-secondary" href={`/usage/export${exportQuery ? `?${exportQuery}` : ''}`} download>Export CSV</a>}
      />
      {!parsed.success ? <Alert tone="warn">Some filters were not valid and were ignored.</Alert> : null}
      <Filters
        action="/usage"
        label="Filter usage events"
        fields={[
          { kind: 'select', name: 'operation', label: 'Operation', value: filters.operation, options: optionsOf(OPERATIONS) },
          { kind: 'select', name: 'outcome', label: 'Outcome', value: filters.outcome, options: optionsOf(['succeeded', 'failed']) },
          { kind: 'search', name: 'key', label: 'Key id', value: filters.apiKeyId, placeholder: 'uuid' },
          { kind: 'date', name: 'from', label: 'From', value: filters.from },
          { kind: 'date', name: 'to', label: 'To (inclusive)', value: filters.to },
        ]}
      />
      <DataTable
        caption="Usage events"
        rows={events.items}
        rowKey={(row) => row.id}
        empty={{ title: 'No usage events', hint: 'Requests made with API keys appear here.' }}
        columns={[
          { header: 'When', cell: (row) => formatDate(row.created_at) },
          { header: 'Operation', cell: (row) => row.operation },
          { header: 'Outcome', cell: (row) => <StatusBadge status={row.outcome} /> },
          { header: 'Units', cell: (row) => formatNumber(row.units), numeric: true },
          { header: 'Error', cell: (row) => (row.error_code ? <code>{row.error_code}</code> : '—') },
          { header: 'Key', cell: (row) => <Link href={`/keys/${row.api_key_id}`}><code>{row.key_prefix}…</code></Link> },
          { header: 'Engine', cell: (row) => (
            <>
              <code title={row.engines_tried.length > 1 ? `tried: ${row.engines_tried.join(' → ')}` : undefined}>{row.engine}</code>
              {row.engines_tried.length > 1 ? ` (${row.engines_tried.length} tried)` : ''}
            </>
          ) },
          { header: 'Duration', cell: (row) => `${formatNumber(row.duration_ms)} ms`, numeric: true },
          { header: 'Job', cell: (row) => (row.job_id ? <Link href={`/jobs/${row.job_id}`}>{row.job_id}</Link> : '—') },
        ]}
      />
      <Pager path="/usage" params={query} nextCursor={events.nextCursor} hasCursor={Boolean(cursor)} />
    </div>
  );
}
