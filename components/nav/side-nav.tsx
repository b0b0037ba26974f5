'use client';
import Link from 'next/link';
import { usePathname } from 'next/navigation';

const LINKS = [
  { href: '/', label: 'Overview' },
  { href: '/packages', label: 'Packages' },
  { href: '/keys', label: 'Keys' },
  { href: '/providers', label: 'Providers' },
  { href: '/usage', label: 'Usage' },
  { href: '/jobs', label: 'Jobs' },
  { href: '/input-uploads', label: 'Uploads' },
  { href: '/sales', label: 'Sales' },
  { href: '/audit', label: 'Audit log' },
];

/** The dashboard's links; Operators only for an owner (no other role may see or change them). */
export function SideNav(props: { owner: boolean }) {
  const links = props.owner ? [...LINKS, { href: '/operators', label: 'Operators' }] : LINKS;
  const pathname = usePathname();
  const current = (href: string) => (href === '/' ? pathname === '/' : pathname === href || pathname.startsWith(`${href}/`));
  return (
    <nav aria-label="Dashboard">
      <ul>
        {links.map((link) => (
          <li key={link.href}>
            <Link href={link.href} aria-current={current(link.href) ? 'page' : undefined}>
              {link.label}
            </Link>
          </li>
        ))}
      </ul>
    </nav>
  );
}
