import Link from 'next/link';
import type { ReactNode } from 'react';

/** A link of a shell's navigation: a page's path, or `#section` of the one page it frames. */
export interface ShellLink {
  href: string;
  label: string;
  current?: boolean;
}

/**
 * The frame of every signed-in page, the operator dashboard's (its layout) and the customer
 * portal's: a skip link to the content, the sidebar (the product's name, the navigation, who is
 * signed in and the sign-out button) and the one `main` landmark, which the page fills with its
 * `PageHeader` (the page's `h1`) and its content. `home` makes the name a link.
 */
export function PageShell(props: {
  name: string;
  home?: string;
  nav: ReactNode;
  account: ReactNode;
  signOut: ReactNode;
  children: ReactNode;
}) {
  return (
    <div className="shell">
      <a className="skip-link" href="#main">
        Skip to content
      </a>
      <aside className="sidebar">
        {props.home ? (
          <Link className="brand" href={props.home}>
            {props.name}
          </Link>
        ) : (
          <span className="brand">{props.name}</span>
        )}
        {props.nav}
        <div className="who">
          <span>{props.account}</span>
          {props.signOut}
        </div>
      </aside>
      <main id="main" className="content">
        {props.children}
      </main>
    </div>
  );
}

/** A shell's navigation, named for assistive technology; the current page's link is marked as such. */
export function ShellNav(props: { label: string; links: ShellLink[] }) {
  return (
    <nav aria-label={props.label}>
      <ul>
        {props.links.map((link) => (
          <li key={link.href}>
            {link.href.startsWith('#') ? (
              <a href={link.href}>{link.label}</a>
            ) : (
              <Link href={link.href} aria-current={link.current ? 'page' : undefined}>
                {link.label}
              </Link>
            )}
          </li>
        ))}
      </ul>
    </nav>
  );
}

/** The frame of a page outside the shell (a sign-in form, a 404 of no signed-in area): its one card, centred. */
export function CentredPage(props: { children: ReactNode }) {
  return (
    <main id="main" className="signin">
      {props.children}
    </main>
  );
}
