import type { Metadata } from 'next';
import { cache } from 'react';
import Link from 'next/link';
import { UnitsPerDayChart } from '@/components/charts/usage-charts';
import { EditLabel } from '@/components/keys/edit-label';
import { TopUpForm } from '@/components/keys/key-actions';
import { RevokeKey } from '@/components/keys/revoke-key';
import { UnitsBar } from '@/components/keys/units-bar';
import { ResendDelivery, WebhookSettings } from '@/components/keys/webhook-settings';
import { StatusBadge } from '@/components/ui/badge';
import { Card, DetailList, Stat } from '@/components/ui/card';
import { DataTable } from '@/components/ui/data-table';
import { formatBytes, formatDate, formatExpiry, formatNumber, surfacePath, type SearchParams } from '@/components/ui/format';
import { MonoId } from '@/components/ui/mono-id';
import { PageHeader } from '@/components/ui/page-header';
import { rangeFromParams, TimeRangePicker } from '@/components/ui/time-range-picker';
import { MarginPanel } from '@/components/margin/margin-panel';
import { PurchasesTable } from '@/components/sales/purchases-table';
import { SaleFlags } from '@/components/sales/sale-flags';
import { BuyerEmailForm, ReinstateKey } from '@/components/sales/key-owner';
import { usageRowHref } from '@/server/contract/dashboard/usage-filters';
import { orNotFound, recordTitle } from '@wgs/server/next';
import { dashboardCaller } from '@/app/(dashboard)/operator';

/** The page's record, read once for its title and its body. */
const readKey = cache(async (id: string) => (await dashboardCaller(`/keys/${id}`)).caller.keys.get({ id }));

export async function generateMetadata(props: { params: Promise<{ id: string }> }): Promise<Metadata> {
  return recordTitle(readKey((await props.params).id), 'API key', (key) => key.label ?? `${key.prefix}…`);
}

export default async function KeyPage(props: { params: Promise<{ id: string }>; searchParams: SearchParams }) {
  const { id } = await props.params;
  const asked = rangeFromParams(await props.searchParams);
  const range = asked.value;
  const { caller, can } = await dashboardCaller(`/keys/${id}`);
  const key = await orNotFound(readKey(id));
  const [activity, refusals, margin, webhook, purchases, owner] = await Promise.all([
    caller.keys.activity({ id: key.id, days: 14 }),
    caller.refusals.byKey({ id: key.id, ...range }),
    caller.margin.report({ key: key.id, ...range }),
    caller.keys.webhook({ id: key.id }),
    caller.sales.forKey({ id: key.id }),
    caller.sales.keyOwner({ id: key.id }),
  ]);
  const used = activity.daily.reduce((sum, day) => sum + day.units, 0);
  return (
    <div className="stack">
      <PageHeader
        title={key.label ?? `${key.prefix}…`}
        description={
          <>
            Key <code>{key.prefix}…</code> on <Link href={`/packages/${key.package}`}>{key.package}</Link> version {key.package_version}.
          </>
        }
        back={{ href: '/keys', label: 'API keys' }}
      />
      <SaleFlags purchases={purchases} status={key.status} />
      <div className="stats">
        <Stat label="Remaining units" value={formatNumber(key.remaining_units)} testId="remaining-units">
          <UnitsBar remaining={key.remaining_units} total={key.total_units} testId="units-bar" />
        </Stat>
        <Stat label="Units used (14 days)" value={formatNumber(used)} testId="units-used" />
        <Stat
          label="Requests (14 days)"
          value={formatNumber(activity.daily.reduce((sum, day) => sum + day.requests, 0))}
          testId="request-count"
        />
        <Stat label="Status" value={<StatusBadge status={key.status} />} testId="key-status" />
      </div>
      <div className="grid">
        <Card title="Details">
          <DetailList
            items={[
              ['Id', <MonoId key="id" value={key.id} what="key id" full />],
              ['Prefix', <MonoId key="prefix" value={key.prefix} what="key prefix" full />],
              ['Label', can('admin') ? <EditLabel key="label" id={key.id} label={key.label} /> : (key.label ?? '—')],
              ['Total units', formatNumber(key.total_units)],
              ['Created', formatDate(key.created_at)],
              ['Last used', formatDate(key.last_used_at)],
              ['Expires', formatExpiry(key.expires_at)],
              ['Revoked', formatDate(key.revoked_at)],
              ['Requests in flight', formatNumber(key.in_flight)],
              ['Stored now', formatBytes(key.stored_bytes)],
            ]}
          />
        </Card>
        <Card title="Units used per day">
          <UnitsPerDayChart data={activity.daily} label={`Units charged per day to this key; ${formatNumber(used)} in the last 14 days.`} />
        </Card>
      </div>
      {owner.suspended && can('admin') ? (
        <div className="grid">
          <Card title="Suspended: decide">
            <p className="muted">
              A dispute suspended this key on {formatDate(owner.suspended_at)}. Reinstate it if the payment is settled in your favour, or
              revoke it. Both are audited.
            </p>
            <ReinstateKey id={key.id} prefix={key.prefix} />
          </Card>
          <Card title="Revoke">
            <RevokeKey id={key.id} prefix={key.prefix} label={key.label} />
          </Card>
        </div>
      ) : null}
      <Card title="Buyer">
        <p className="muted">
          The buyer&apos;s e-mail confirms rotations and webhook changes in the customer portal and is told of each one
          {owner.mail_on ? '' : ' (e-mail is off: set SMTP_URL and MAIL_FROM; until then the portal offers no such change)'}.
        </p>
        {can('admin') ? <BuyerEmailForm id={key.id} email={owner.buyer_email} /> : <p>{owner.buyer_email ?? 'No e-mail'}</p>}
      </Card>
      {key.status === 'active' && can('admin') ? (
        <div className="grid">
          <Card title="Top up units">
            <TopUpForm id={key.id} />
          </Card>
          <Card title="Revoke">
            <p className="muted">A revoked key is refused by the API within a second. The audit log records who revoked it.</p>
            <RevokeKey id={key.id} prefix={key.prefix} label={key.label} />
          </Card>
        </div>
      ) : null}
      {purchases.length > 0 ? (
        <Card title="Bought through Stripe">
          <PurchasesTable rows={purchases} caption="Purchases and top-ups of this key" keyStatus={key.status} />
        </Card>
      ) : null}
      <MarginPanel report={margin} title={`Revenue, provider cost and margin over ${margin.range.label}`} />
      <Card title="Job webhook">
        {can('admin') && key.status === 'active' ? (
          <WebhookSettings id={key.id} url={webhook.url} disabledAt={webhook.disabled_at} />
        ) : (
          <p className="muted">
            Endpoint: {webhook.host ? <code>{webhook.host}</code> : 'none'}
            {webhook.disabled_at ? ' (disabled: it answered 410 Gone)' : ''}
            {/* The server refuses an endpoint for such a key: the form is not offered. */}
            {key.status === 'active' ? '' : `. A ${key.status} key runs no jobs, so it takes no webhook endpoint.`}
          </p>
        )}
        <DataTable
          caption="Latest webhook deliveries of this key"
          rows={webhook.deliveries}
          rowKey={(row) => row.id}
          empty={{ title: 'No deliveries yet', hint: 'Each video job of this key that ends while a webhook is set is listed here.' }}
          columns={[
            { header: 'Created', cell: (row) => <span className="nowrap">{formatDate(row.created_at)}</span> },
            { header: 'Event', cell: (row) => <code>{row.event_type}</code> },
            { header: 'Job', cell: (row) => <MonoId value={row.job_id} what="job id" href={`/jobs/${row.job_id}`} head={8} tail={4} /> },
            { header: 'Status', cell: (row) => <StatusBadge status={row.status} /> },
            { header: 'Attempts', cell: (row) => formatNumber(row.attempts), numeric: true },
            { header: 'Last answer', cell: (row) => (row.last_status ? String(row.last_status) : (row.last_error ?? '—')) },
            { header: 'Next try', cell: (row) => <span className="nowrap">{formatDate(row.next_attempt_at)}</span> },
            ...(can('admin')
              ? [
                  {
                    header: 'Resend',
                    cell: (row: (typeof webhook.deliveries)[number]) => <ResendDelivery id={key.id} delivery={row} />,
                  },
                ]
              : []),
          ]}
        />
      </Card>
      <Card title="Refused requests">
        <TimeRangePicker action={`/keys/${key.id}`} range={asked} />
        <p>
          <span data-testid="key-refused">{formatNumber(refusals.total)}</span> refused over {refusals.label} (turned away before an engine:
          nothing charged).
        </p>
        <DataTable
          caption="Refused requests with this key by code"
          rows={refusals.by_code}
          rowKey={(row) => `${row.status}-${row.code}`}
          empty={{
            title: 'No refused requests',
            hint: 'Requests with this key turned away for bad input, rate, quota or scope are counted here.',
          }}
          columns={[
            { header: 'Status', cell: (row) => row.status, numeric: true },
            { header: 'Code', cell: (row) => <code>{row.code}</code> },
            { header: 'Requests', cell: (row) => formatNumber(row.count), numeric: true },
          ]}
        />
      </Card>
      <Card title="Recent requests">
        <DataTable
          caption="Recent requests with this key"
          rows={activity.recent}
          rowKey={(row) => row.id}
          empty={{ title: 'No requests yet', hint: 'Requests that reach an engine with this key are listed here.' }}
          columns={[
            { header: 'When', cell: (row) => <span className="nowrap">{formatDate(row.created_at)}</span> },
            { header: 'Operation', cell: (row) => row.operation },
            { header: 'Through', cell: (row) => <code>{surfacePath(row.surface)}</code> },
            { header: 'Outcome', cell: (row) => <StatusBadge status={row.outcome} /> },
            { header: 'Units', cell: (row) => formatNumber(row.units), numeric: true },
            { header: 'Error', cell: (row) => (row.error_code ? <code>{row.error_code}</code> : '—') },
            { header: 'Duration', cell: (row) => `${formatNumber(row.duration_ms)} ms`, numeric: true },
            {
              header: 'Request id',
              cell: (row) => <MonoId value={row.request_id} what="request id" href={usageRowHref(row.request_id)} head={8} tail={4} />,
            },
          ]}
        />
        <p>
          <Link href={`/usage?key=${key.id}`}>All usage of this key</Link>
        </p>
      </Card>
    </div>
  );
}
