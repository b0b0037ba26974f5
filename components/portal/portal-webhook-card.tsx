import { StatusBadge } from '../ui/badge';
import { Card } from '../ui/card';
import { DataTable } from '../ui/data-table';
import { formatDate, formatNumber } from '../ui/format';
import type { DeliveryView, KeyWebhook } from '@/server/trpc/outputs';
import type { PortalOwner } from '@/server/trpc/outputs';
import { PortalResendDelivery, PortalWebhookSettings } from './portal-webhook';

/** The job webhook's endpoint (changed only with the buyer's e-mailed code) and the key's latest deliveries to it. */
export function PortalWebhookCard(props: { webhook: KeyWebhook & { deliveries: Omit<DeliveryView, 'job_id'>[] }; owner: PortalOwner }) {
  const { webhook, owner } = props;
  return (
    <Card title="Job webhook" id="webhook">
      {owner.can_change ? (
        <PortalWebhookSettings url={webhook.url} disabledAt={webhook.disabled_at} />
      ) : (
        <p className="muted" data-testid="webhook-read-only">
          Endpoint: {webhook.url ? <code>{webhook.url}</code> : 'none'}
          {webhook.disabled_at ? ' (disabled: it answered 410 Gone)' : ''}. {noChangeReason(owner)}
        </p>
      )}
      <DataTable
        caption="Latest webhook deliveries"
        rows={webhook.deliveries}
        rowKey={(row) => row.id}
        empty={{ title: 'No deliveries yet', hint: 'Each video job that ends while a webhook is set is listed here.' }}
        columns={[
          { header: 'Created', cell: (row) => <span className="nowrap">{formatDate(row.created_at)}</span> },
          { header: 'Event', cell: (row) => <code>{row.event_type}</code> },
          { header: 'Status', cell: (row) => <StatusBadge status={row.status} /> },
          { header: 'Attempts', cell: (row) => formatNumber(row.attempts), numeric: true },
          { header: 'Last answer', cell: (row) => (row.last_status ? String(row.last_status) : (row.last_error ?? '—')) },
          { header: 'Next try', cell: (row) => <span className="nowrap">{formatDate(row.next_attempt_at)}</span> },
          ...(owner.status === 'active'
            ? [{ header: 'Resend', cell: (row: Omit<DeliveryView, 'job_id'>) => <PortalResendDelivery delivery={row} /> }]
            : []),
        ]}
      />
    </Card>
  );
}

/** Where changes are confirmed, when the portal can confirm them (mail on, a buyer's e-mail); nothing otherwise (noChangeReason says why). */
export function confirmationNote(owner: PortalOwner): string {
  return owner.email && owner.can_change ? ` Changes are confirmed by e-mail to ${owner.email}.` : '';
}

/** Why the portal offers no rotation or webhook change, and whom to ask instead. */
export function noChangeReason(owner: PortalOwner): string {
  if (owner.status === 'suspended') return `This key is suspended: ask ${owner.contact}.`;
  return owner.email
    ? `Changes are confirmed by e-mail, which this service cannot send: ask ${owner.contact}.`
    : `Changes are confirmed by e-mail to the key's buyer, and this key has none: ask ${owner.contact}.`;
}
