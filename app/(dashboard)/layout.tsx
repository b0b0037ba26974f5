import type { Metadata } from 'next';
import { redirect } from 'next/navigation';
import type { ReactNode } from 'react';
import { SideNav } from '@/components/nav/side-nav';
import { SignOutButton } from '@/components/nav/sign-out-button';
import { PageShell } from '@/components/ui/page-shell';
import { signInPathForThisRequest } from '@wgs/server/next';
import { currentOperator } from './operator';

export const dynamic = 'force-dynamic';

export const metadata: Metadata = { title: { template: '%s · Workflow Generation Service', default: 'Workflow Generation Service' } };

export default async function DashboardLayout({ children }: { children: ReactNode }) {
  const session = await currentOperator();
  if (!session) redirect(signInPathForThisRequest());
  return (
    <PageShell
      name="Workflow Generation Service"
      home="/"
      nav={<SideNav owner={session.role === 'owner'} />}
      account={
        <>
          Signed in as
          <strong className="email" data-testid="operator-email" title={session.email}>
            {session.email}
          </strong>
          <span className="role" data-testid="operator-role">
            {session.role}
          </span>
        </>
      }
      signOut={<SignOutButton />}
    >
      {children}
    </PageShell>
  );
}
