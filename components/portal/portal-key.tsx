import { UnitsPerDayChart } from '../charts/usage-charts';
import { UnitsBar } from '../keys/units-bar';
import { Card, DetailList, Stat } from '../ui/card';
import { formatBytes, formatDate, formatNumber, operationName } from '../ui/format';
import type { PortalOverview } from '@/server/trpc/outputs';

/** Remaining units and the last 30 days at a glance. */
export function PortalStats({ overview }: { overview: PortalOverview }) {
  const used = overview.daily.reduce((sum, day) => sum + day.units, 0);
  const requests = overview.daily.reduce((sum, day) => sum + day.requests, 0);
  return (
    <div className="stats">
      <Stat label="Remaining units" value={formatNumber(overview.key.remaining_units)} testId="portal-remaining-units">
        <UnitsBar remaining={overview.key.remaining_units} total={overview.key.total_units} testId="portal-units-bar" />
      </Stat>
      <Stat label={`Units used (${overview.daily.length} days)`} value={formatNumber(used)} testId="portal-units-used" />
      <Stat label={`Calls (${overview.daily.length} days)`} value={formatNumber(requests)} testId="portal-calls" />
      <Stat label="Key expires" value={overview.key.expires_at ? formatDate(overview.key.expires_at) : 'Never'} />
    </div>
  );
}

/** The package the key is locked to: what each operation costs and the limits that apply. */
export function PortalPackage({ overview }: { overview: PortalOverview }) {
  const { key } = overview;
  const operations = Object.entries(key.operations).map(
    ([name, settings]) => `${operationName(name)} (${name}, ${formatNumber(settings?.units ?? 0)} units)`,
  );
  return (
    <Card title="Your package" id="package">
      <DetailList
        items={[
          ['Package', `${key.package.name} (${key.package.slug}, version ${key.package.version})`],
          ['Operations', operations.join(', ') || '—'],
          ['Requests per minute', formatNumber(key.limits.requests_per_minute)],
          ['Concurrent requests', formatNumber(key.limits.concurrency)],
          ['Largest upload', formatBytes(key.limits.max_upload_bytes)],
          ['Storage held at once', formatBytes(key.limits.max_stored_bytes)],
          ['Units in all (package and top-ups)', formatNumber(key.total_units)],
        ]}
      />
    </Card>
  );
}

export function PortalUsageChart({ overview }: { overview: PortalOverview }) {
  const used = overview.daily.reduce((sum, day) => sum + day.units, 0);
  return (
    <Card title="Units used per day" id="usage">
      <UnitsPerDayChart
        data={overview.daily}
        label={`Units charged per day to your key; ${formatNumber(used)} in the last ${overview.daily.length} days.`}
      />
    </Card>
  );
}
