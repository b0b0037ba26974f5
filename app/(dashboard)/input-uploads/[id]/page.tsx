import type { Metadata } from 'next';
import { cache } from 'react';
import { StatusBadge } from '@/components/ui/badge';
import { Card, DetailList } from '@/components/ui/card';
import { DataTable } from '@/components/ui/data-table';
import { formatBytes, formatDate, formatNumber } from '@/components/ui/format';
import { MediaPreview } from '@/components/ui/media-preview';
import { MonoId } from '@/components/ui/mono-id';
import { UploadStatus } from '@/components/uploads/upload-status';
import { PageHeader } from '@/components/ui/page-header';
import { retentionDeletedBytes } from '@/server/contract/dashboard/upload-retention';
import { usageRowHref } from '@/server/contract/dashboard/usage-filters';
import { orNotFound, recordTitle } from '@wgs/server/next';
import { dashboardCaller } from '@/app/(dashboard)/operator';

/** The page's record, read once for its title and its body. */
const readUpload = cache(async (id: string) => (await dashboardCaller(`/input-uploads/${id}`)).caller.uploads.get({ id }));

export async function generateMetadata(props: { params: Promise<{ id: string }> }): Promise<Metadata> {
  return recordTitle(readUpload((await props.params).id), 'Upload', (upload) => upload.filename);
}

export default async function UploadPage(props: { params: Promise<{ id: string }> }) {
  const { id } = await props.params;
  const { caller } = await dashboardCaller(`/input-uploads/${id}`);
  const upload = await orNotFound(readUpload(id));
  const [file, usedBy] = await Promise.all([caller.uploads.fileLink({ id: upload.id }), caller.uploads.usedBy({ id: upload.id })]);
  return (
    <div className="stack">
      <PageHeader
        title={upload.filename}
        description={
          <>
            Upload <MonoId value={upload.id} what="upload id" full />
          </>
        }
        back={{ href: '/input-uploads', label: 'Uploads' }}
      />
      <Card title="Preview">
        {file ? (
          <MediaPreview link={file} name={upload.filename} label={`Preview of ${upload.filename}`} />
        ) : retentionDeletedBytes(upload) ? (
          <p className="muted">
            Its bytes were deleted on {formatDate(upload.deleted_at)}, <code>UPLOAD_RETENTION_HOURS</code> after it was created: the API
            answers 404 for it since.
          </p>
        ) : (
          <p className="muted">Only verified uploads are kept; this one is {upload.status}, so there is nothing to show.</p>
        )}
      </Card>
      <Card title="Details">
        <DetailList
          items={[
            ['Status', <UploadStatus key="status" upload={upload} />],
            ['Purpose', upload.purpose],
            ['File name', upload.filename],
            ['Type', upload.mime_type],
            ['Declared size', formatBytes(upload.size_bytes)],
            ['Received size', formatBytes(upload.received_bytes)],
            ['Declared SHA-256', <MonoId key="sha" value={upload.sha256} what="SHA-256" head={12} tail={8} />],
            [
              'Received SHA-256',
              upload.received_sha256 ? <MonoId key="rsha" value={upload.received_sha256} what="SHA-256" head={12} tail={8} /> : '—',
            ],
            ['Key', <MonoId key="key" value={upload.key_prefix} what="key prefix" href={`/keys/${upload.api_key_id}`} full />],
            ['Created', formatDate(upload.created_at)],
            ['Expires', formatDate(upload.expires_at)],
            ['Verified', formatDate(upload.verified_at)],
            ['Deleted', formatDate(upload.deleted_at)],
          ]}
        />
      </Card>
      <Card title="Calls that used it">
        <DataTable
          caption="Calls that used this upload"
          rows={usedBy}
          rowKey={(row) => `${row.request_id} ${row.outcome} ${row.created_at}`}
          empty={{
            title: 'No call has used this upload yet',
            hint: 'Every call that takes it as input_upload_id (images.generate, audio.transcribe, videos.generate) is listed here.',
          }}
          columns={[
            {
              header: 'Request id',
              cell: (row) => (
                <MonoId
                  value={row.request_id}
                  what="request id"
                  href={row.has_usage_row ? usageRowHref(row.request_id) : `/jobs/${row.job_id}`}
                  head={8}
                  tail={4}
                />
              ),
            },
            { header: 'Operation', cell: (row) => row.operation },
            { header: 'Outcome', cell: (row) => <StatusBadge status={row.outcome} /> },
            {
              header: 'Units',
              cell: (row) => (row.has_usage_row ? formatNumber(row.units) : `${formatNumber(row.units)} held`),
              numeric: true,
            },
            { header: 'When', cell: (row) => <span className="nowrap">{formatDate(row.created_at)}</span> },
            { header: 'Job', cell: (row) => (row.job_id ? <MonoId value={row.job_id} what="job id" href={`/jobs/${row.job_id}`} /> : '—') },
          ]}
        />
      </Card>
    </div>
  );
}
