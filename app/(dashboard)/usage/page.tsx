import type { Metadata } from 'next';
import Link from 'next/link';
import { UsageTable } from '@/components/usage/usage-table';
import { Card, EmptyState } from '@/components/ui/card';
import { Filters, optionsOf } from '@/components/ui/filters';
import { param, type SearchParams } from '@/components/ui/format';
import { PageHeader } from '@/components/ui/page-header';
import { pageAt, Pager } from '@/components/ui/pager';
import { parseUsageFilters, USAGE_FILTER_PARAMS } from '@/server/contract/dashboard/usage-filters';
import { OPERATIONS } from '@wgs/server/next';
import { dashboardCaller } from '@/app/(dashboard)/operator';

export const metadata: Metadata = { title: 'Usage' };

export default async function UsagePage({ searchParams }: { searchParams: SearchParams }) {
  const params = await searchParams;
  const { caller } = await dashboardCaller('/usage');
  const { filters, invalid } = parseUsageFilters((name) => param(params, name));
  const cursor = param(params, 'cursor');
  // A filter that cannot be read lists nothing, nor exports (as /usage/export refuses it): the rest alone listed everything.
  const unreadable = Object.keys(invalid).length > 0;
  const listed = unreadable
    ? null
    : await Promise.all([pageAt((input) => caller.usage.list(input), { ...filters, cursor, limit: 50 }), caller.usage.totals(filters)]);
  const totals = listed?.[1];
  const query: Record<string, string | undefined> = Object.fromEntries(
    Object.entries(USAGE_FILTER_PARAMS).map(([field, name]) => [name, filters[field as keyof typeof filters]]),
  );
  const exportQuery = new URLSearchParams(Object.entries(query).filter((entry): entry is [string, string] => Boolean(entry[1]))).toString();
  const keyHint = totals?.matching_keys ? `Matches ${totals.matching_keys} key${totals.matching_keys === 1 ? '' : 's'}.` : undefined;
  const keyError = invalid.key ?? (totals?.matching_keys === 0 ? 'No key has this prefix, label or id.' : undefined);
  const filtered = Object.values(query).some(Boolean);
  return (
    <div className="stack">
      <PageHeader
        title="Usage"
        description="One event per request that reached an engine: what it cost and how it ended. Dates are UTC."
        actions={
          unreadable ? undefined : (
            <a className="button button-secondary" href={`/usage/export${exportQuery ? `?${exportQuery}` : ''}`} download>
              Export CSV{filtered ? ' (filtered)' : ''}
            </a>
          )
        }
      />
      <Filters
        action="/usage"
        label="Filter usage events"
        fields={[
          {
            kind: 'search',
            name: 'key',
            label: 'Key',
            value: filters.key ?? param(params, 'key'),
            placeholder: 'prefix, label or id',
            hint: keyHint,
            error: keyError,
          },
          {
            kind: 'select',
            name: 'operation',
            label: 'Operation',
            value: filters.operation,
            options: optionsOf(OPERATIONS),
            error: invalid.operation,
          },
          {
            kind: 'select',
            name: 'outcome',
            label: 'Outcome',
            value: filters.outcome,
            options: optionsOf(['succeeded', 'failed']),
            error: invalid.outcome,
          },
          { kind: 'date', name: 'from', label: 'From', value: filters.from ?? param(params, 'from'), error: invalid.from },
          { kind: 'date', name: 'to', label: 'To (inclusive)', value: filters.to ?? param(params, 'to'), error: invalid.to },
          ...(filters.request || invalid.request
            ? [
                {
                  kind: 'search' as const,
                  name: 'request',
                  label: 'Request id',
                  value: filters.request ?? param(params, 'request'),
                  error: invalid.request,
                },
              ]
            : []),
        ]}
      />
      {listed ? (
        <>
          <UsageTable
            rows={listed[0].items}
            totals={listed[1]}
            highlight={filters.request}
            empty={
              filtered
                ? { title: 'No usage events match these filters', hint: <Link href="/usage">Clear the filters</Link> }
                : { title: 'No usage events yet', hint: 'Requests made with API keys appear here.' }
            }
          />
          <Pager
            path="/usage"
            params={query}
            nextCursor={listed[0].nextCursor}
            prevCursor={listed[0].prevCursor}
            hasCursor={Boolean(cursor)}
          />
        </>
      ) : (
        <Card>
          <EmptyState title="Fix the filters above">
            <p>Nothing is listed or exported while a filter cannot be read.</p>
          </EmptyState>
        </Card>
      )}
    </div>
  );
}
