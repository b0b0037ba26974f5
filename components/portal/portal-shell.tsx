import type { ReactNode } from 'react';
import { PortalSignOutButton } from './portal-sign-in-form';

const SECTIONS = [
  { href: '#usage', label: 'Usage' },
  { href: '#calls', label: 'Recent calls' },
  { href: '#jobs', label: 'Jobs' },
  { href: '#uploads', label: 'Uploads' },
  { href: '#receipts', label: 'Top-ups and receipts' },
  { href: '#webhook', label: 'Job webhook' },
  { href: '#key', label: 'Key' },
];

/** The portal's frame, in the dashboard's: the sections of the one page, the key signed in, sign-out. */
export function PortalShell(props: { keyPrefix: string; sections?: { href: string; label: string }[]; children: ReactNode }) {
  return (
    <div className="shell">
      <a className="skip-link" href="#main">
        Skip to content
      </a>
      <aside className="sidebar">
        <span className="brand">Customer portal</span>
        <nav aria-label="Portal">
          <ul>
            {[...SECTIONS, ...(props.sections ?? [])].map((section) => (
              <li key={section.href}>
                <a href={section.href}>{section.label}</a>
              </li>
            ))}
          </ul>
        </nav>
        <div className="who">
          <span>
            Signed in with
            <strong className="email" data-testid="portal-key-prefix">
              {props.keyPrefix}…
            </strong>
          </span>
          <PortalSignOutButton />
        </div>
      </aside>
      <main id="main" className="content">
        {props.children}
      </main>
    </div>
  );
}
