import type { Metadata } from 'next';
import { PortalStats, PortalPackage, PortalUsageChart } from '@/components/portal/portal-key';
import { RecentCalls, RecentJobs, RecentUploads } from '@/components/portal/portal-activity';
import { PortalShell } from '@/components/portal/portal-shell';
import { PortalSignInForm } from '@/components/portal/portal-sign-in-form';
import { PortalWebhookCard } from '@/components/portal/portal-webhook-card';
import { RotateKey } from '@/components/portal/rotate-key';
import { Card } from '@/components/ui/card';
import { PageHeader } from '@/components/ui/page-header';
import { portalCaller } from '@/server/trpc/portal/portal-caller';

export const metadata: Metadata = { title: 'Customer portal · Workflow Generation Service' };

export default async function PortalPage() {
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
  const [overview, webhook] = await Promise.all([portal.caller.overview(), portal.caller.webhook()]);
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
        <PortalStats overview={overview} />
        <div className="grid">
          <PortalPackage overview={overview} />
          <PortalUsageChart overview={overview} />
        </div>
        <RecentCalls calls={overview.calls} />
        <RecentJobs jobs={overview.jobs} />
        <RecentUploads uploads={overview.uploads} />
        <PortalWebhookCard webhook={webhook} />
        <Card title="Rotate your key" id="key">
          <p className="muted">If the key may have leaked, replace its secret: the old one stops working at once.</p>
          <RotateKey prefix={overview.key.prefix} />
        </Card>
      </div>
    </PortalShell>
  );
}
