import type { Metadata } from 'next';
import { UploadStatus } from '@/components/uploads/upload-status';
import { DataTable } from '@/components/ui/data-table';
import { Filters, optionsOf } from '@/components/ui/filters';
import { pageAt, Pager } from '@/components/ui/pager';
import { formatBytes, formatDate, param, type SearchParams } from '@/components/ui/format';
import { MonoId } from '@/components/ui/mono-id';
import { PageHeader } from '@/components/ui/page-header';
import { UPLOAD_STATUSES } from '@wgs/server/next';
import { dashboardCaller } from '@/app/(dashboard)/operator';

export const metadata: Metadata = { title: 'Uploads' };

export default async function UploadsPage({ searchParams }: { searchParams: SearchParams }) {
  const params = await searchParams;
  const { caller } = await dashboardCaller('/input-uploads');
  const status = param(params, 'status', UPLOAD_STATUSES);
  const cursor = param(params, 'cursor');
  const uploads = await pageAt((input) => caller.uploads.list(input), { status, cursor, limit: 50 });
  return (
    <div className="stack">
      <PageHeader title="Uploads" description="Direct private uploads used as inputs, newest first." />
      <Filters
        action="/input-uploads"
        label="Filter uploads"
        fields={[
          {
            kind: 'select',
            name: 'status',
            label: 'Status',
            value: status,
            options: optionsOf(UPLOAD_STATUSES),
            error: param(params, 'status') && !status ? `Status must be one of ${UPLOAD_STATUSES.join(', ')}.` : undefined,
          },
        ]}
      />
      <DataTable
        caption="Uploads"
        rows={uploads.items}
        rowKey={(row) => row.id}
        empty={{ title: status ? `No ${status} uploads` : 'No uploads yet', hint: 'Uploads created with POST /v1/uploads appear here.' }}
        columns={[
          { header: 'Upload', cell: (row) => <MonoId value={row.id} what="upload id" href={`/input-uploads/${row.id}`} /> },
          { header: 'Status', cell: (row) => <UploadStatus upload={row} /> },
          { header: 'Purpose', cell: (row) => row.purpose },
          { header: 'File', cell: (row) => row.filename },
          { header: 'Type', cell: (row) => row.mime_type },
          { header: 'Size', cell: (row) => formatBytes(row.size_bytes), numeric: true },
          { header: 'Key', cell: (row) => <MonoId value={row.key_prefix} what="key prefix" href={`/keys/${row.api_key_id}`} full /> },
          { header: 'Created', cell: (row) => <span className="nowrap">{formatDate(row.created_at)}</span> },
        ]}
      />
      <Pager
        path="/input-uploads"
        params={{ status }}
        nextCursor={uploads.nextCursor}
        prevCursor={uploads.prevCursor}
        hasCursor={Boolean(cursor)}
      />
    </div>
  );
}
