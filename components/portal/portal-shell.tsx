import type { ReactNode } from 'react';
import { PageShell, ShellNav, type ShellLink } from '../ui/page-shell';
import { PortalSignOutButton } from './portal-sign-in-form';

const SECTIONS: ShellLink[] = [
  { href: '#usage', label: 'Usage' },
  { href: '#calls', label: 'Recent calls' },
  { href: '#jobs', label: 'Jobs' },
  { href: '#uploads', label: 'Uploads' },
  { href: '#receipts', label: 'Top-ups and receipts' },
  { href: '#webhook', label: 'Job webhook' },
  { href: '#key', label: 'Key' },
];

/** The portal's frame, the dashboard's shell: the sections of the one page, the key signed in, sign-out. */
export function PortalShell(props: { keyPrefix: string; children: ReactNode }) {
  return (
    <PageShell
      name="Customer portal"
      nav={<ShellNav label="Portal" links={SECTIONS} />}
      account={
        <>
          Signed in with
          <strong className="email" data-testid="portal-key-prefix">
            {props.keyPrefix}…
          </strong>
        </>
      }
      signOut={<PortalSignOutButton />}
    >
      {props.children}
    </PageShell>
  );
}
