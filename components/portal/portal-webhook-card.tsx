import { StatusBadge } from '../ui/badge';
import { Card } from '../ui/card';
import { DataTable } from '../ui/data-table';
import { formatDate, formatNumber } from '../ui/format';
import { MonoId } from '../ui/mono-id';
import type { DeliveryView, KeyWebhook } from '@/server/domain/webhooks/manage-webhook';
import { PortalResendDelivery, PortalWebhookSettings } from './portal-webhook';

/** The job webhook's endpoint and the key's latest deliveries to it. */
export function PortalWebhookCard({ webhook }: { webhook: KeyWebhook & { deliveries: DeliveryView[] } }) {
  return (
    <Card title="Job webhook" id="webhook">
      <PortalWebhookSettings url={webhook.url} disabledAt={webhook.disabled_at} />
      <DataTable
        caption="Latest webhook deliveries"
        rows={webhook.deliveries}
        rowKey={(row) => row.id}
        empty={{ title: 'No deliveries yet', hint: 'Each video job that ends while a webhook is set is listed here.' }}
        columns={[
          { header: 'Created', cell: (row) => <span className="nowrap">{formatDate(row.created_at)}</span> },
          { header: 'Event', cell: (row) => <code>{row.event_type}</code> },
          { header: 'Job', cell: (row) => <MonoId value={row.job_id} what="job id" head={8} tail={4} /> },
          { header: 'Status', cell: (row) => <StatusBadge status={row.status} /> },
          { header: 'Attempts', cell: (row) => formatNumber(row.attempts), numeric: true },
          { header: 'Last answer', cell: (row) => (row.last_status ? String(row.last_status) : (row.last_error ?? '—')) },
          { header: 'Next try', cell: (row) => <span className="nowrap">{formatDate(row.next_attempt_at)}</span> },
          { header: 'Resend', cell: (row) => <PortalResendDelivery deliveryId={row.id} /> },
        ]}
      />
    </Card>
  );
}
