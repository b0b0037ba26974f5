import type { Metadata } from 'next';
import Link from 'next/link';
import { PurchasesTable } from '@/components/sales/purchases-table';
import { SalesFlagsNotice } from '@/components/sales/sale-flags';
import { Alert } from '@/components/ui/card';
import { param, type SearchParams } from '@/components/ui/format';
import { PageHeader } from '@/components/ui/page-header';
import { pageAt, Pager } from '@/components/ui/pager';
import { dashboardCaller } from '@/app/(dashboard)/operator';

export const metadata: Metadata = { title: 'Sales' };

export default async function SalesPage({ searchParams }: { searchParams: SearchParams }) {
  const cursor = param(await searchParams, 'cursor');
  const { caller } = await dashboardCaller('/sales');
  const [sales, flags] = await Promise.all([pageAt((input) => caller.sales.list(input), { cursor, limit: 50 }), caller.sales.flags()]);
  return (
    <div className="stack">
      <PageHeader
        title="Sales"
        description={
          <>
            Packages and top-ups bought through Stripe Checkout at <Link href="/buy">/buy</Link>, newest first. Dates are UTC.
          </>
        }
      />
      {sales.selling ? null : (
        <Alert tone="warn">Selling is off: set STRIPE_SECRET_KEY and STRIPE_WEBHOOK_SECRET to turn it on (docs/selling.md).</Alert>
      )}
      <SalesFlagsNotice {...flags} />
      <PurchasesTable rows={sales.items} caption="Purchases and top-ups" showKey />
      <Pager path="/sales" params={{}} nextCursor={sales.next_cursor} hasCursor={Boolean(cursor)} />
    </div>
  );
}
