'use client';
import { usePathname } from 'next/navigation';
import { ShellNav } from '../ui/page-shell';

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

/** The dashboard's links, the current page's marked; Operators only for an owner (no other role may see or change them). */
export function SideNav(props: { owner: boolean }) {
  const links = props.owner ? [...LINKS, { href: '/operators', label: 'Operators' }] : LINKS;
  const pathname = usePathname();
  const current = (href: string) => (href === '/' ? pathname === '/' : pathname === href || pathname.startsWith(`${href}/`));
  return <ShellNav label="Dashboard" links={links.map((link) => ({ ...link, current: current(link.href) }))} />;
}
