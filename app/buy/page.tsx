import type { Metadata } from 'next';
import { headers } from 'next/headers';
import { ApiExamples } from '@/components/sales/api-examples';
import { Catalogue } from '@/components/sales/catalogue';
import { Alert } from '@/components/ui/card';
import { param, type SearchParams } from '@/components/ui/format';
import { PageHeader } from '@/components/ui/page-header';
import { apiBaseUrls, cataloguePage } from '@wgs/server/next';

export const dynamic = 'force-dynamic';
export const metadata: Metadata = { title: 'Buy API access · Workflow Generation Service' };

const ERRORS: Record<string, string> = {
  unavailable: 'That package is not for sale any more: choose one below.',
  stripe: 'The payment page could not be opened; nothing was charged. Please try again.',
  busy: 'Too many checkouts were started from your network in the last minute; nothing was charged. Please try again in a minute.',
};

export default async function BuyPage({ searchParams }: { searchParams: SearchParams }) {
  const page = await cataloguePage();
  const error = ERRORS[param(await searchParams, 'error') ?? ''];
  return (
    <main id="main" className="content public">
      <PageHeader
        title="Buy API access"
        description="Each package is an API key with a number of units to spend on the operations it includes. Pay once; the key is shown right after."
      />
      <div className="stack">
        {error ? <Alert tone="error">{error}</Alert> : null}
        {page.selling ? (
          <>
            <Catalogue packages={page.packages} />
            <ApiExamples urls={apiBaseUrls(await headers())} />
          </>
        ) : (
          <Alert tone="warn">Selling is off on this service: ask its operator for an API key.</Alert>
        )}
      </div>
    </main>
  );
}
