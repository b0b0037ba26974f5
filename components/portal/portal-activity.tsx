import { StatusBadge } from '../ui/badge';
import { Card } from '../ui/card';
import { jobUnits } from '../jobs/job-units';
import { DataTable } from '../ui/data-table';
import { formatBytes, formatDate, formatNumber, surfacePath } from '../ui/format';
import { MonoId } from '../ui/mono-id';
import type { PortalCall, PortalJob, PortalUpload } from '@/server/trpc/outputs';

const when = (value: string | null) => <span className="nowrap">{formatDate(value)}</span>;

/** The key's latest calls: what was asked, how it ended and what it cost. */
export function RecentCalls({ calls }: { calls: PortalCall[] }) {
  return (
    <Card title="Recent calls" id="calls">
      <DataTable
        caption="Your latest calls"
        rows={calls}
        rowKey={(row) => row.id}
        empty={{ title: 'No calls yet', hint: 'Each call to the API with this key is listed here once it has run.' }}
        columns={[
          { header: 'Time', cell: (row) => when(row.created_at) },
          { header: 'Operation', cell: (row) => <code>{row.operation}</code> },
          { header: 'Through', cell: (row) => <code>{surfacePath(row.surface)}</code> },
          { header: 'Status', cell: (row) => <StatusBadge status={row.outcome} /> },
          { header: 'Units charged', cell: (row) => formatNumber(row.units), numeric: true },
          { header: 'Error', cell: (row) => (row.error_code ? <code>{row.error_code}</code> : '—') },
          {
            header: 'Request',
            cell: (row) => (row.request_id ? <MonoId value={row.request_id} what="request id" head={8} tail={4} /> : '—'),
          },
        ]}
      />
    </Card>
  );
}

/** Jobs and uploads without their ids: /v1 lists neither, so a leaked key learns none here (portal-overview.ts). */
export function RecentJobs({ jobs }: { jobs: PortalJob[] }) {
  return (
    <Card title="Jobs" id="jobs">
      <DataTable
        caption="Your latest video jobs"
        rows={jobs.map((job, position) => ({ ...job, position }))}
        rowKey={(row) => String(row.position)}
        empty={{ title: 'No jobs yet', hint: 'Video jobs started with this key are listed here.' }}
        columns={[
          { header: 'Created', cell: (row) => when(row.created_at) },
          { header: 'Operation', cell: (row) => <code>{row.operation}</code> },
          { header: 'Status', cell: (row) => <StatusBadge status={row.status} /> },
          { header: 'Units', cell: (row) => jobUnits(row), numeric: true },
          { header: 'Error', cell: (row) => (row.error_code ? <code>{row.error_code}</code> : '—') },
        ]}
      />
    </Card>
  );
}

export function RecentUploads({ uploads }: { uploads: PortalUpload[] }) {
  return (
    <Card title="Uploads" id="uploads">
      <DataTable
        caption="Your latest uploads"
        rows={uploads.map((upload, position) => ({ ...upload, position }))}
        rowKey={(row) => String(row.position)}
        empty={{ title: 'No uploads yet', hint: 'Files uploaded with this key for later calls are listed here until they expire.' }}
        columns={[
          { header: 'Created', cell: (row) => when(row.created_at) },
          { header: 'Purpose', cell: (row) => row.purpose },
          { header: 'Status', cell: (row) => <StatusBadge status={row.status} /> },
          { header: 'Size', cell: (row) => formatBytes(row.size_bytes), numeric: true },
          { header: 'Usable until', cell: (row) => when(row.usable_until) },
        ]}
      />
    </Card>
  );
}
