import type { Metadata } from 'next';
import { headers } from 'next/headers';
import { CheckoutResult } from '@/components/sales/checkout-result';
import { param, type SearchParams } from '@/components/ui/format';
import { PageHeader } from '@/components/ui/page-header';
import { apiBaseUrls, portalEnabled, successPage } from '@wgs/server/next';

export const dynamic = 'force-dynamic';
export const metadata: Metadata = { title: 'Thank you · Workflow Generation Service', referrer: 'no-referrer' };

export default async function BuySuccessPage({ searchParams }: { searchParams: SearchParams }) {
  const pageHeaders = await headers();
  const result = await successPage(param(await searchParams, 'session_id'), pageHeaders.get('cookie'));
  return (
    <main id="main" className="content public">
      <PageHeader title="Thank you" back={{ href: '/buy', label: 'Catalogue' }} />
      <CheckoutResult result={result} portal={portalEnabled()} urls={apiBaseUrls(pageHeaders)} />
    </main>
  );
}
