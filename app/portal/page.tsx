import type { Metadata } from 'next';
import { headers } from 'next/headers';
import { notFound } from 'next/navigation';
import { ApiExamples } from '@/components/sales/api-examples';
import { PortalStats, PortalPackage, PortalUsageChart } from '@/components/portal/portal-key';
import { RecentCalls, RecentJobs, RecentUploads } from '@/components/portal/portal-activity';
import { PortalShell } from '@/components/portal/portal-shell';
import { FocusAfterSignIn, PortalSignInForm } from '@/components/portal/portal-sign-in-form';
import { confirmationNote, noChangeReason, PortalWebhookCard } from '@/components/portal/portal-webhook-card';
import { RotateKey } from '@/components/portal/rotate-key';
import { PortalPurchases } from '@/components/portal/portal-receipts';
import { RefreshWhileProcessing } from '@/components/sales/refresh-while-processing';
import { Alert, Card } from '@/components/ui/card';
import { formatDate, formatNumber, param, type SearchParams } from '@/components/ui/format';
import { PageHeader } from '@/components/ui/page-header';
import { CentredPage } from '@/components/ui/page-shell';
import { apiBaseUrls, noteStoreUnavailable, portalCaller, portalEnabled, topUpReturnOf } from '@wgs/server/next';

export const metadata: Metadata = { title: 'Customer portal · Workflow Generation Service' };

export default async function PortalPage({ searchParams }: { searchParams: SearchParams }) {
  if (!portalEnabled()) notFound();
  const sessionId = param(await searchParams, 'session_id');
  const portal = await portalCaller(noteStoreUnavailable);
  if (!portal) {
    return (
      <CentredPage>
        <div className="card">
          <h1>Sign in to your customer portal</h1>
          <p className="muted">Use the API key you bought. You are signed in for an hour, until you sign out or the key changes.</p>
          <PortalSignInForm />
        </div>
      </CentredPage>
    );
  }
  // Back from a top-up checkout: its units first, so the figures below include them.
  const returned = sessionId ? await topUpReturnOf(portal.caller, sessionId) : null;
  const [overview, webhook, sales] = await Promise.all([portal.caller.overview(), portal.caller.webhook(), portal.caller.sales()]);
  const { owner } = overview;
  return (
    <PortalShell keyPrefix={overview.key.prefix}>
      <FocusAfterSignIn />
      <div className="stack">
        <PageHeader
          title="Your API key"
          description={
            <>
              Key <code>{overview.key.prefix}…</code> on {overview.key.package.name}.{confirmationNote(owner)}
            </>
          }
        />
        {owner.status === 'suspended' ? (
          <Alert tone="error">
            <span data-testid="portal-suspended">
              This key is suspended since {formatDate(owner.suspended_at)}: a payment for it was disputed. The API refuses it until the
              operator decides; ask {owner.contact}.
            </span>
          </Alert>
        ) : null}
        {returned?.state === 'topped_up' ? (
          <Alert tone="ok">Thank you: {formatNumber(returned.units)} units were added to your key.</Alert>
        ) : null}
        {returned?.state === 'expired' ? (
          <Alert tone="warn">This checkout expired before it was paid; nothing was charged and no units were added.</Alert>
        ) : null}
        {returned?.state === 'refused' ? (
          <Alert tone="error">
            The payment Stripe reported is not the price of this top-up, so no units were added. The operator has been told and will refund
            or settle it; ask {owner.contact}.
          </Alert>
        ) : null}
        {returned?.state === 'processing' ? (
          <Alert tone="warn">
            Your payment is being processed: the units are added when it completes, and this page shows them then.
            <RefreshWhileProcessing />
          </Alert>
        ) : null}
        <PortalStats overview={overview} />
        <div className="grid">
          <PortalPackage overview={overview} />
          <PortalUsageChart overview={overview} />
        </div>
        <ApiExamples urls={apiBaseUrls(await headers())} operations={Object.keys(overview.key.operations)} />
        <RecentCalls calls={overview.calls} />
        <RecentJobs jobs={overview.jobs} />
        <RecentUploads uploads={overview.uploads} />
        <PortalPurchases sales={sales} />
        <PortalWebhookCard webhook={webhook} owner={owner} />
        <Card title="Rotate your key" id="key">
          {owner.can_change ? (
            <>
              <p className="muted">If the key may have leaked, replace its secret: the old one stops working at once.</p>
              <RotateKey prefix={overview.key.prefix} />
            </>
          ) : (
            <p className="muted" data-testid="rotation-unavailable">
              If the key may have leaked, its secret must be replaced. {noChangeReason(owner)}
            </p>
          )}
        </Card>
      </div>
    </PortalShell>
  );
}
