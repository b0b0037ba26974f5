import type { Metadata } from 'next';
import Link from 'next/link';
import { Alert, Card, DetailList } from '@/components/ui/card';
import { DataTable } from '@/components/ui/data-table';
import { formatBytes, formatDate, formatNumber, param, type SearchParams } from '@/components/ui/format';
import { PageHeader } from '@/components/ui/page-header';
import { engineNamesOf } from '@/server/domain/packages/engine-names';
import { dashboardCaller, orNotFound } from '@/server/trpc/server-caller';

export const metadata: Metadata = { title: 'Package' };

function settingsRows(operations: Record<string, Record<string, unknown> | undefined>) {
  return Object.entries(operations)
    .filter((entry): entry is [string, Record<string, unknown>] => Boolean(entry[1]))
    .map(([operation, settings]) => ({ operation, settings }));
}

const show = (value: unknown) => (Array.isArray(value) ? value.join(', ') : value === undefined ? 'any' : String(value));

export default async function PackagePage(props: { params: Promise<{ slug: string }>; searchParams: SearchParams }) {
  const { slug } = await props.params;
  const created = param(await props.searchParams, 'created');
  const { caller } = await dashboardCaller(`/packages/${slug}`);
  const pkg = await orNotFound(caller.packages.get({ slug }));
  return (
    <div className="stack">
      <PageHeader
        title={pkg.name}
        description={<>Package <code>{pkg.slug}</code>, latest version {pkg.latest_version}.</>}
        back={{ href: '/packages', label: 'Packages' }}
        actions={
          <>
            <Link className="button" href={`/packages/${pkg.slug}/new-version`}>New version</Link>
            <Link className="button button-secondary" href={`/keys/new?package=${pkg.slug}`}>Issue a key</Link>
          </>
        }
      />
      {created ? <Alert tone="ok">Version {created} created.</Alert> : null}
      {pkg.versions.map((version) => (
        <Card key={version.id} title={`Version ${version.version}${version.version === pkg.latest_version ? ' (latest)' : ''}`} id={`v${version.version}`}>
          <div className="stack">
            <DetailList
              items={[
                ['Name', version.name],
                ['Quota', `${formatNumber(version.quota_units)} units`],
                ['Requests per minute', formatNumber(version.limits.requests_per_minute)],
                ['Concurrent requests', formatNumber(version.limits.concurrency)],
                ['Largest upload', formatBytes(version.limits.max_upload_bytes)],
                ['Keys issued', formatNumber(version.key_count)],
                ['Created', formatDate(version.created_at)],
              ]}
            />
            <DataTable
              caption={`Operations of version ${version.version}`}
              rows={settingsRows(version.operations as Record<string, Record<string, unknown> | undefined>)}
              rowKey={(row) => row.operation}
              empty={{ title: 'No operations' }}
              columns={[
                { header: 'Operation', cell: (row) => row.operation },
                { header: 'Engine', cell: (row) => <code>{engineNamesOf(row.settings.engine as string | string[]).join(' → ')}</code> },
                { header: 'Units', cell: (row) => show(row.settings.units), numeric: true },
                {
                  header: 'Settings',
                  cell: (row) =>
                    Object.entries(row.settings)
                      .filter(([key]) => key !== 'engine' && key !== 'units')
                      .map(([key, value]) => `${key}: ${show(value)}`)
                      .join('; ') || 'defaults',
                },
              ]}
            />
          </div>
        </Card>
      ))}
    </div>
  );
}
