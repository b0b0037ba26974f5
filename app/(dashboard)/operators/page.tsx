import type { Metadata } from 'next';
import { OperatorControls } from '@/components/operators/operator-controls';
import { StatusBadge } from '@/components/ui/badge';
import { DataTable } from '@/components/ui/data-table';
import { formatDate } from '@/components/ui/format';
import { PageHeader } from '@/components/ui/page-header';
import { ROLE_DESCRIPTIONS, OPERATOR_ROLES } from '@/server/contract/dashboard/roles';
import { dashboardCaller } from '@/app/(dashboard)/operator';

export const metadata: Metadata = { title: 'Operators' };

export default async function OperatorsPage() {
  const { caller, session } = await dashboardCaller('/operators', 'owner');
  const operators = await caller.operators.list();
  return (
    <div className="stack">
      <PageHeader
        title="Operators"
        description={
          <>
            Who may sign in to this dashboard, and what each may do:{' '}
            {[...OPERATOR_ROLES]
              .reverse()
              .map((role) => `${role} (${ROLE_DESCRIPTIONS[role]})`)
              .join(', ')}
            . New operators are created with <code>npm run cli -- operators create --email E --role ROLE</code>. The last owner keeps their
            role.
          </>
        }
      />
      <DataTable
        caption="Operators"
        rows={operators}
        rowKey={(row) => row.id}
        empty={{ title: 'No operators' }}
        columns={[
          {
            header: 'E-mail',
            cell: (row) => (
              <span data-testid={`operator-${row.email}`}>
                {row.email}
                {row.email === session.email ? ' (you)' : ''}
              </span>
            ),
          },
          { header: 'Name', cell: (row) => row.name ?? '—' },
          { header: 'Role', cell: (row) => <span data-testid={`role-of-${row.email}`}>{row.role}</span> },
          { header: 'Access', cell: (row) => <StatusBadge status={row.disabled ? 'disabled' : 'active'} /> },
          { header: 'Last sign-in', cell: (row) => formatDate(row.last_login_at) },
          {
            header: 'Change',
            cell: (row) =>
              row.last_owner ? (
                <span className="muted">the last owner: make another operator an owner first</span>
              ) : (
                <OperatorControls email={row.email} role={row.role} disabled={row.disabled} self={row.email === session.email} />
              ),
          },
        ]}
      />
    </div>
  );
}
