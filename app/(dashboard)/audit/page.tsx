import type { Metadata } from 'next';
import { AuditTargetLink } from '@/components/audit/audit-target';
import { VersionDiff } from '@/components/packages/version-diff';
import type { VersionChange } from '@/server/trpc/outputs';
import { DataTable } from '@/components/ui/data-table';
import { Filters, optionsOf } from '@/components/ui/filters';
import { Pager } from '@/components/ui/pager';
import { formatDate, param, truncated, type SearchParams } from '@/components/ui/format';
import { PageHeader } from '@/components/ui/page-header';
import { isAuditCursor } from '@wgs/server/next';
import { dashboardCaller } from '@/app/(dashboard)/operator';

export const metadata: Metadata = { title: 'Audit log' };

function change(value: unknown) {
  if (value === null || value === undefined) return '—';
  const text = JSON.stringify(value);
  if (text.length <= 120) return <code>{text}</code>;
  return (
    <details>
      <summary>{truncated(text, 60)}</summary>
      <pre className="json">{JSON.stringify(value, null, 2)}</pre>
    </details>
  );
}

export default async function AuditPage({ searchParams }: { searchParams: SearchParams }) {
  const params = await searchParams;
  const { caller } = await dashboardCaller('/audit');
  const actions = await caller.audit.actions();
  const filters = {
    action: param(params, 'action', actions),
    actor: param(params, 'actor')?.slice(0, 320),
    targetId: param(params, 'target')?.slice(0, 200),
  };
  const rawCursor = param(params, 'cursor');
  const cursor = rawCursor && isAuditCursor(rawCursor) ? rawCursor : undefined;
  const entries = await caller.audit.list({ ...filters, cursor, limit: 50 });
  // A new version is shown as what changed from the one before it, not as its whole definition.
  const diffs = new Map<string, { from: number; to: number; changes: VersionChange[] }>();
  await Promise.all(
    entries.items.map(async (entry) => {
      const target = entry.target;
      if (entry.action !== 'package.version.create' || !('slug' in target) || !target.version || !target.previous_version) return;
      const diff = await caller.packages.diff({ slug: target.slug, from: target.previous_version, to: target.version }).catch(() => null);
      if (diff) diffs.set(entry.id, diff);
    }),
  );
  return (
    <div className="stack">
      <PageHeader
        title="Audit log"
        description="Every operator action: who, what, when, and the values before and after. Entries cannot be changed or deleted."
      />
      <Filters
        action="/audit"
        label="Filter the audit log"
        fields={[
          {
            kind: 'select',
            name: 'action',
            label: 'Action',
            value: filters.action,
            options: optionsOf(actions),
            // An action no entry has is no filter: say so rather than list everything as if it applied.
            error: param(params, 'action') && !filters.action ? 'No entry has this action: pick one from the list.' : undefined,
          },
          { kind: 'search', name: 'actor', label: 'Who', value: filters.actor, placeholder: 'e-mail, cli, system' },
          { kind: 'search', name: 'target', label: 'Target id', value: filters.targetId, placeholder: 'key id, package slug' },
        ]}
      />
      <DataTable
        caption="Audit log entries"
        rows={entries.items}
        rowKey={(row) => row.id}
        empty={{ title: 'No entries match', hint: 'Operator actions are recorded here as they happen.' }}
        columns={[
          { header: 'When', cell: (row) => <span className="nowrap">{formatDate(row.created_at)}</span> },
          { header: 'Who', cell: (row) => `${row.actor_label} (${row.actor_type})` },
          { header: 'Action', cell: (row) => <code className="nowrap">{row.action}</code> },
          { header: 'Target', cell: (row) => <AuditTargetLink target={row.target} /> },
          {
            header: 'Change',
            cell: (row) => {
              const diff = diffs.get(row.id);
              if (diff)
                return (
                  <VersionDiff
                    changes={diff.changes}
                    from={diff.from}
                    to={diff.to}
                    caption={`Changes from version ${diff.from} to ${diff.to} of ${row.target_id}`}
                    inline
                  />
                );
              return (
                <span className="stack audit-change" style={{ gap: '0.25rem' }}>
                  {row.before !== null && row.before !== undefined ? (
                    <span>
                      <span className="muted">before </span>
                      {change(row.before)}
                    </span>
                  ) : null}
                  <span>
                    <span className="muted">{row.before !== null && row.before !== undefined ? 'after ' : ''}</span>
                    {change(row.after)}
                  </span>
                </span>
              );
            },
          },
        ]}
      />
      <Pager
        path="/audit"
        params={{ action: filters.action, actor: filters.actor, target: filters.targetId }}
        nextCursor={entries.nextCursor}
        hasCursor={Boolean(cursor)}
      />
    </div>
  );
}
