import Link from 'next/link';
import { CopyButton } from '@/components/keys/copy-button';
import { Alert, Card } from '@/components/ui/card';
import { formatNumber } from '@/components/ui/format';
import type { CheckoutPageState } from '@/server/domain/sales/checkout-page';

/** Where a customer goes next: the portal with the key, or the operator when it is lost. */
function NextSteps() {
  return (
    <p>
      Sign in to the <Link href="/portal">customer portal</Link> with your key to see its units, calls and receipts, and to top it up. Lost
      the key? Ask the operator of this service to revoke it and issue you a new one.
    </p>
  );
}

export function CheckoutResult({ result }: { result: CheckoutPageState | { state: 'off' } }) {
  switch (result.state) {
    case 'revealed':
      return (
        <Card title="Your API key">
          <div className="stack">
            <Alert tone="warn">Copy the key now. It is shown only this once and cannot be recovered; only its hash is kept.</Alert>
            <div className="secret">
              <code data-testid="purchased-key">{result.key}</code>
              <CopyButton value={result.key} label="Copy key" />
            </div>
            <p>
              {result.packageName}: {formatNumber(result.units)} units. Send it as <code>Authorization: Bearer …</code> to{' '}
              <Link href="/docs">the API</Link>.
            </p>
            <NextSteps />
          </div>
        </Card>
      );
    case 'key_issued':
      return (
        <Card title="Payment received">
          <p data-testid="key-issued">
            Your key for {result.packageName} (<code>{result.prefix}…</code>) was issued and shown once, in the browser that paid for it.
          </p>
          <NextSteps />
        </Card>
      );
    case 'topped_up':
      return (
        <Card title="Top-up received">
          <p data-testid="topped-up">
            {formatNumber(result.units)} units were added to key <code>{result.prefix}…</code>.
          </p>
          <NextSteps />
        </Card>
      );
    case 'processing':
      return (
        <Alert tone="warn">Your payment is still being confirmed. This page shows your key as soon as it is: reload it in a minute.</Alert>
      );
    case 'off':
      return <Alert tone="warn">Selling is off on this service: ask its operator for an API key.</Alert>;
    default:
      return <Alert tone="error">No purchase was found for this page. Start again from the catalogue, or ask the operator.</Alert>;
  }
}
