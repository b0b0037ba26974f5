import type { ReactNode } from 'react';
import { StatusBadge } from '@/components/ui/badge';
import { DataTable } from '@/components/ui/data-table';
import { formatDate, formatNumber, surfacePath } from '@/components/ui/format';
import { MonoId } from '@/components/ui/mono-id';
import type { UsageTotals, UsageView } from '@/server/trpc/outputs';

/** The usage events table: one row per request, with a totals row over everything filtered. */
export function UsageTable(props: {
  rows: UsageView[];
  totals: UsageTotals;
  highlight?: string;
  empty: { title: string; hint?: ReactNode };
}) {
  const { totals } = props;
  return (
    <DataTable
      caption="Usage events"
      rows={props.rows}
      rowKey={(row) => row.id}
      rowProps={(row) => ({ id: `usage-${row.request_id}`, className: row.request_id === props.highlight ? 'highlight' : undefined })}
      empty={props.empty}
      footer={[
        `Totals of all ${formatNumber(totals.requests)} matching requests`,
        '',
        `${formatNumber(totals.succeeded)} succeeded, ${formatNumber(totals.failed)} failed`,
        formatNumber(totals.units),
      ]}
      columns={[
        { header: 'When', cell: (row) => <span className="nowrap">{formatDate(row.created_at)}</span> },
        { header: 'Operation', cell: (row) => row.operation },
        { header: 'Outcome', cell: (row) => <StatusBadge status={row.outcome} /> },
        { header: 'Units', cell: (row) => formatNumber(row.units), numeric: true },
        {
          header: 'Key',
          cell: (row) => (
            <span className="nowrap">
              <MonoId value={row.key_prefix} what="key prefix" href={`/keys/${row.api_key_id}`} full />
              {row.key_label ? <span className="muted"> {row.key_label}</span> : null}
            </span>
          ),
        },
        { header: 'Request id', cell: (row) => <MonoId value={row.request_id} what="request id" head={8} tail={4} /> },
        { header: 'Error', cell: (row) => (row.error_code ? <code>{row.error_code}</code> : '—') },
        { header: 'Through', cell: (row) => <code>{surfacePath(row.surface)}</code> },
        {
          header: 'Engine',
          cell: (row) => (
            <>
              <code title={row.engines_tried.length > 1 ? `tried: ${row.engines_tried.join(' → ')}` : undefined}>{row.engine}</code>
              {row.engines_tried.length > 1 ? ` (${row.engines_tried.length} tried)` : ''}
            </>
          ),
        },
        { header: 'Duration', cell: (row) => `${formatNumber(row.duration_ms)} ms`, numeric: true },
        { header: 'Job', cell: (row) => (row.job_id ? <MonoId value={row.job_id} what="job id" href={`/jobs/${row.job_id}`} /> : '—') },
      ]}
    />
  );
}
