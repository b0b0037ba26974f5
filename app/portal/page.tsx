import type { Metadata } from 'next';
import { PortalStats, PortalPackage, PortalUsageChart } from '@/components/portal/portal-key';
import { RecentCalls, RecentJobs, RecentUploads } from '@/components/portal/portal-activity';
import { PortalShell } from '@/components/portal/portal-shell';
import { PortalSignInForm } from '@/components/portal/portal-sign-in-form';
import { PortalWebhookCard } from '@/components/portal/portal-webhook-card';
import { RotateKey } from '@/components/portal/rotate-key';
import { PortalPurchases } from '@/components/portal/portal-receipts';
import { Alert, Card } from '@/components/ui/card';
import { formatNumber, param, type SearchParams } from '@/components/ui/format';
import { PageHeader } from '@/components/ui/page-header';
import { portalCaller } from '@wgs/server/next';

export const metadata: Metadata = { title: 'Customer portal · Workflow Generation Service' };

export default async function PortalPage({ searchParams }: { searchParams: SearchParams }) {
  const sessionId = param(await searchParams, 'session_id');
  const portal = await portalCaller();
  if (!portal) {
    return (
      <main className="signin">
        <div className="card">
          <h1>Sign in to your customer portal</h1>
          <p className="muted">Use the API key you bought. You are signed in for an hour, until you sign out or the key changes.</p>
          <PortalSignInForm />
        </div>
      </main>
    );
  }
  // Back from a top-up checkout: its units first, so the figures below include them.
  const returned = sessionId ? await portal.caller.topUpReturn({ sessionId }).catch(() => null) : null;
  const [overview, webhook, sales] = await Promise.all([portal.caller.overview(), portal.caller.webhook(), portal.caller.sales()]);
  return (
    <PortalShell keyPrefix={overview.key.prefix}>
      <div className="stack">
        <PageHeader
          title="Your API key"
          description={
            <>
              Key <code>{overview.key.prefix}…</code> on {overview.key.package.name}.
            </>
          }
        />
        {returned?.state === 'topped_up' ? (
          <Alert tone="ok">Thank you: {formatNumber(returned.units)} units were added to your key.</Alert>
        ) : null}
        {returned?.state === 'processing' ? (
          <Alert tone="warn">Your payment is being processed: the units are added when it completes.</Alert>
        ) : null}
        <PortalStats overview={overview} />
        <div className="grid">
          <PortalPackage overview={overview} />
          <PortalUsageChart overview={overview} />
        </div>
        <RecentCalls calls={overview.calls} />
        <RecentJobs jobs={overview.jobs} />
        <RecentUploads uploads={overview.uploads} />
        <PortalPurchases sales={sales} />
        <PortalWebhookCard webhook={webhook} />
        <Card title="Rotate your key" id="key">
          <p className="muted">If the key may have leaked, replace its secret: the old one stops working at once.</p>
          <RotateKey prefix={overview.key.prefix} />
        </Card>
      </div>
    </PortalShell>
  );
}
