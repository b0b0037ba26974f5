import type { Metadata } from 'next';
import Link from 'next/link';
import { redirect } from 'next/navigation';
import type { ReactNode } from 'react';
import { SideNav } from '@/components/nav/side-nav';
import { SignOutButton } from '@/components/nav/sign-out-button';
import { signInPathForThisRequest } from '@wgs/server/next';
import { currentOperator } from './operator';

export const dynamic = 'force-dynamic';

export const metadata: Metadata = { title: { template: '%s · Workflow Generation Service', default: 'Workflow Generation Service' } };

export default async function DashboardLayout({ children }: { children: ReactNode }) {
  const session = await currentOperator();
  if (!session) redirect(signInPathForThisRequest());
  return (
    <div className="shell">
      <a className="skip-link" href="#main">
        Skip to content
      </a>
      <aside className="sidebar">
        <Link className="brand" href="/">
          Workflow Generation Service
        </Link>
        <SideNav owner={session.role === 'owner'} />
        <div className="who">
          <span>
            Signed in as
            <strong className="email" data-testid="operator-email" title={session.email}>
              {session.email}
            </strong>
            <span className="role" data-testid="operator-role">
              {session.role}
            </span>
          </span>
          <SignOutButton />
        </div>
      </aside>
      <main id="main" className="content">
        {children}
      </main>
    </div>
  );
}
