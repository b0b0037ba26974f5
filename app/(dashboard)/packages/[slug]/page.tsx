import type { Metadata } from 'next';
import { cache } from 'react';
import Link from 'next/link';
import { ArchivePackage } from '@/components/packages/archive-package';
import { VersionDiff } from '@/components/packages/version-diff';
import { comparedVersions, missingVersionsText } from '@/components/packages/compared-versions';
import { StatusBadge } from '@/components/ui/badge';
import { Alert, Card, DetailList } from '@/components/ui/card';
import { DataTable } from '@/components/ui/data-table';
import { formatBytes, formatDate, formatNumber, formatPriceTerm, param, type SearchParams } from '@/components/ui/format';
import { saleSummary } from '@/components/sales/money';
import { PageHeader } from '@/components/ui/page-header';
import { engineNamesOf, orNotFound, recordTitle } from '@wgs/server/next';
import { dashboardCaller } from '@/app/(dashboard)/operator';
import { MarginPanel } from '@/components/margin/margin-panel';
import { rangeFromParams, TimeRangePicker } from '@/components/ui/time-range-picker';

/** The page's record, read once for its title and its body. */
const readPackage = cache(async (slug: string) => (await dashboardCaller(`/packages/${slug}`)).caller.packages.get({ slug }));

export async function generateMetadata(props: { params: Promise<{ slug: string }> }): Promise<Metadata> {
  return recordTitle(readPackage((await props.params).slug), 'Package', (pkg) => pkg.name);
}

function settingsRows(operations: Record<string, Record<string, unknown> | undefined>) {
  return Object.entries(operations)
    .filter((entry): entry is [string, Record<string, unknown>] => Boolean(entry[1]))
    .map(([operation, settings]) => ({ operation, settings }));
}

const show = (value: unknown) => (Array.isArray(value) ? value.join(', ') : value === undefined ? 'any' : String(value));

export default async function PackagePage(props: { params: Promise<{ slug: string }>; searchParams: SearchParams }) {
  const { slug } = await props.params;
  const search = await props.searchParams;
  const created = param(search, 'created');
  const { caller, can } = await dashboardCaller(`/packages/${slug}`);
  const pkg = await orNotFound(readPackage(slug));
  // Compare any two versions; by default the latest with the one before it. One the address names
  // that does not exist is said to, rather than compared as another. Each of the page's two forms
  // keeps the other's choice (its own parameters: `from`/`to` are the time range's).
  const numbers = pkg.versions.map((version) => version.version);
  const askedVersions = { from: param(search, 'from_version'), to: param(search, 'to_version') };
  const { from, to, missing } = comparedVersions(numbers, pkg.latest_version, askedVersions);
  const diff = numbers.length > 1 && missing.length === 0 ? await caller.packages.diff({ slug: pkg.slug, from, to }) : null;
  const asked = rangeFromParams(search);
  const range = asked.value;
  const margin = await caller.margin.report({ package: pkg.slug, ...range });
  return (
    <div className="stack">
      <PageHeader
        title={pkg.name}
        description={
          <>
            Package <code>{pkg.slug}</code>, latest version {pkg.latest_version}.{' '}
            {pkg.archived_at ? <StatusBadge status="archived" /> : null}
          </>
        }
        back={{ href: '/packages', label: 'Packages' }}
        actions={
          <>
            {can('admin') ? (
              <Link className="button" href={`/packages/${pkg.slug}/new-version`}>
                New version
              </Link>
            ) : null}
            {pkg.archived_at || !can('admin') ? null : (
              <Link className="button button-secondary" href={`/keys/new?package=${pkg.slug}`}>
                Issue a key
              </Link>
            )}
          </>
        }
      />
      {created ? <Alert tone="ok">Version {created} created.</Alert> : null}
      {pkg.archived_at ? (
        <Alert tone="warn">Archived on {formatDate(pkg.archived_at)}: no new keys can be issued; keys already issued keep working.</Alert>
      ) : null}
      <TimeRangePicker
        action={`/packages/${pkg.slug}`}
        range={asked}
        keep={{ from_version: askedVersions.from, to_version: askedVersions.to }}
      />
      <MarginPanel report={margin} title={`Revenue, provider cost and margin over ${margin.range.label}`} />
      {missing.length > 0 ? <Alert tone="warn">{missingVersionsText(pkg.slug, missing, numbers)}</Alert> : null}
      {numbers.length > 1 ? (
        <Card title="Compare versions" id="diff">
          <div className="stack">
            <form className="filters" method="get" action={`/packages/${pkg.slug}#diff`} aria-label="Choose two versions to compare">
              {Object.entries(asked.asked).map(([name, value]) =>
                value ? <input key={name} type="hidden" name={name} value={value} /> : null,
              )}
              {(['from', 'to'] as const).map((name) => (
                <div className="field" key={name}>
                  <label htmlFor={`diff-${name}`}>{name === 'from' ? 'From version' : 'To version'}</label>
                  <select id={`diff-${name}`} name={`${name}_version`} defaultValue={name === 'from' ? from : to}>
                    {numbers.map((version) => (
                      <option key={version} value={version}>
                        {version}
                      </option>
                    ))}
                  </select>
                </div>
              ))}
              <button className="button button-secondary" type="submit">
                Compare
              </button>
            </form>
            {diff ? <VersionDiff changes={diff.changes} from={diff.from} to={diff.to} /> : null}
          </div>
        </Card>
      ) : null}
      {pkg.versions.map((version) => (
        <Card
          key={version.id}
          title={`Version ${version.version}${version.version === pkg.latest_version ? ' (latest)' : ''}`}
          id={`v${version.version}`}
        >
          <div className="stack">
            <DetailList
              items={[
                ['Name', version.name],
                ['Quota', `${formatNumber(version.quota_units)} units`],
                ['Requests per minute', formatNumber(version.limits.requests_per_minute)],
                ['Concurrent requests', formatNumber(version.limits.concurrency)],
                ['Largest upload', formatBytes(version.limits.max_upload_bytes)],
                ['Unit price', version.unit_price !== undefined ? formatPriceTerm(String(version.unit_price), margin.currency) : 'not set'],
                ['For sale (/buy)', saleSummary(version.sale)],
                [
                  'Provider cost budget per key per day',
                  version.limits.max_provider_cost_per_day !== undefined
                    ? formatPriceTerm(String(version.limits.max_provider_cost_per_day), margin.currency)
                    : 'none',
                ],
                [
                  'Storage per key',
                  version.limits.max_stored_bytes === undefined
                    ? `${formatBytes(version.limits.max_upload_bytes * 10)} (10 × the largest upload)`
                    : formatBytes(version.limits.max_stored_bytes),
                ],
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
      {can('admin') ? (
        <Card title={pkg.archived_at ? 'Archived' : 'Archive'}>
          <p className="muted">
            An archived package sells no new keys; the keys already issued on it keep working. The audit log records who archived it.
          </p>
          <ArchivePackage slug={pkg.slug} archived={Boolean(pkg.archived_at)} />
        </Card>
      ) : null}
    </div>
  );
}
