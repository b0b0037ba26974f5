import type { Metadata } from 'next';
import { Card } from '@/components/ui/card';
import { DataTable } from '@/components/ui/data-table';
import { formatDate } from '@/components/ui/format';
import { PageHeader } from '@/components/ui/page-header';
import { SetProviderKeyForm } from '@/components/providers/set-key-form';
import type { ProviderView } from '@/server/domain/providers/list-providers';
import { dashboardCaller } from '@/server/trpc/server-caller';

export const metadata: Metadata = { title: 'Providers' };

function keyStatus(provider: ProviderView): string {
  if (provider.key.source === 'stored') return `stored (set ${formatDate(provider.key.updated_at!)})`;
  if (provider.key.source === 'env') return `from ${provider.api_key_env}`;
  return provider.api_key_env ? `not set (${provider.api_key_env} is empty)` : 'none (called without a key)';
}

export default async function ProvidersPage() {
  const { caller } = await dashboardCaller('/providers');
  const providers = await caller.providers.list();
  return (
    <div className="stack">
      <PageHeader
        title="Providers"
        description="The servers engines call. A key set here is stored encrypted, used before the environment variable, and never shown again."
      />
      <DataTable
        caption="Providers"
        rows={providers}
        rowKey={(row) => row.name}
        empty={{ title: 'No providers yet', hint: <>Add them under <code>providers</code> in a packages file (<code>npm run cli -- packages apply FILE</code>).</> }}
        columns={[
          { header: 'Name', cell: (row) => <code>{row.name}</code> },
          { header: 'Type', cell: (row) => row.type },
          { header: 'Base URL', cell: (row) => <code>{row.base_url}</code> },
          { header: 'API key', cell: (row) => keyStatus(row) },
        ]}
      />
      {providers.map((provider) => (
        <Card key={provider.name} title={`Key of ${provider.name}`}>
          <SetProviderKeyForm provider={provider.name} hasStoredKey={provider.key.source === 'stored'} />
        </Card>
      ))}
    </div>
  );
}
