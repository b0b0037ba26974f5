import type { Metadata } from 'next';
import { cache } from 'react';
import { KeyStatus, failureText } from '@/components/providers/key-status';
import { ProviderForm } from '@/components/providers/provider-form';
import { SetProviderKeyForm } from '@/components/providers/set-key-form';
import { TestProviderForm } from '@/components/providers/test-provider-form';
import { Alert, Card, DetailList, Stat } from '@/components/ui/card';
import { formatNumber, param, type SearchParams } from '@/components/ui/format';
import { PageHeader } from '@/components/ui/page-header';
import { orNotFound, recordTitle, testOperationOf } from '@wgs/server/next';
import { dashboardCaller } from '@/app/(dashboard)/operator';

/** The page's record, read once for its title and its body. */
const readProvider = cache(async (name: string) => (await dashboardCaller(`/providers/${name}`)).caller.providers.get({ name }));

export async function generateMetadata(props: { params: Promise<{ name: string }> }): Promise<Metadata> {
  return recordTitle(readProvider((await props.params).name), 'Provider', (provider) => provider.name);
}

export default async function ProviderPage(props: { params: Promise<{ name: string }>; searchParams: SearchParams }) {
  const { name } = await props.params;
  const created = param(await props.searchParams, 'created');
  const { can } = await dashboardCaller(`/providers/${name}`);
  const provider = await orNotFound(readProvider(name));
  const { health } = provider;
  return (
    <div className="stack">
      <PageHeader
        title={provider.name}
        description={
          <>
            {provider.label}. Engines name it as <code>{provider.name}:MODEL</code>.
          </>
        }
        back={{ href: '/providers', label: 'Providers' }}
      />
      {created ? (
        <Alert tone="ok">
          Provider {provider.name} added. {can('owner') ? 'Set its key below, then test it.' : 'An owner sets its key; then test it.'}
        </Alert>
      ) : null}
      <div className="stats">
        <Stat label="Calls (24 h)" value={formatNumber(health.calls)} testId="provider-calls" />
        <Stat label="Failures (24 h)" value={failureText(health.calls, health.failures)} testId="provider-failures" />
        <Stat label="p95 latency (24 h)" value={health.p95_ms === null ? '—' : `${formatNumber(health.p95_ms)} ms`} testId="provider-p95" />
      </div>
      <div className="grid">
        <Card title="Details">
          <DetailList
            items={[
              ['Type', provider.type],
              [
                'Base URL',
                provider.base_url ? (
                  <code key="url">{provider.base_url}</code>
                ) : (
                  `default${provider.default_base_url ? `: ${provider.default_base_url}` : ''}`
                ),
              ],
              ['Key', <KeyStatus key="key" provider={provider} />],
              ['Serves', provider.operations.join(', ') || 'nothing this version knows'],
              ...Object.entries(provider.options).map(([option, value]): [string, string] => [option, value]),
              ['Models in packages', provider.models.length > 0 ? provider.models.join(', ') : 'none yet'],
            ]}
          />
        </Card>
        {can('admin') ? (
          <Card title="Test">
            {/* A new key or server makes the last outcome stale: the form starts afresh. */}
            <TestProviderForm
              key={`${provider.key.source}:${provider.key.updated_at}:${provider.type}:${provider.base_url}:${JSON.stringify(provider.options)}`}
              provider={provider.name}
              operation={testOperationOf(provider.operations) ?? null}
              models={provider.models}
            />
          </Card>
        ) : null}
      </div>
      {can('owner') ? (
        <Card title="Key">
          <p className="muted">
            Stored encrypted and used before {provider.api_key_env ? <code>{provider.api_key_env}</code> : 'any environment variable'}. Once
            stored it is never shown again; store another to replace it.
          </p>
          <SetProviderKeyForm provider={provider.name} hasStoredKey={provider.key.source === 'stored'} />
        </Card>
      ) : null}
      {can('admin') ? (
        <Card title="Edit">
          <ProviderForm mode="update" initial={provider} hasStoredKey={provider.key.source === 'stored'} />
        </Card>
      ) : null}
    </div>
  );
}
