import { CopyButton } from '@/components/keys/copy-button';
import { Alert, Card } from '@/components/ui/card';
import { formatNumber } from '@/components/ui/format';
import { ApiExamples, type BaseUrls } from './api-examples';
import { RefreshWhileProcessing } from './refresh-while-processing';
import type { CheckoutPageState, KeyIssued } from '@/server/contract/sales-pages';

/**
 * Where a customer goes next: the portal with the key (when it is on), or the operator when it is lost.
 * A plain link, not next/link: the client router would keep this page, and Back would show a
 * key that is shown only once again.
 */
function NextSteps({ portal }: { portal: boolean }) {
  return (
    <p>
      {portal ? (
        <>
          Sign in to the <a href="/portal">customer portal</a> with your key to see its units, calls and receipts, and to top it up.{' '}
        </>
      ) : null}
      Lost the key? Ask the operator of this service to revoke it and issue you a new one.
    </p>
  );
}

const KEY_ISSUED: Record<KeyIssued['secret'], string> = {
  shown: ' and shown once, in the browser that started this checkout.',
  waiting:
    '. It is shown once, only in the browser that started this checkout, and has not been shown yet: open this page in that browser.',
  deleted: ', and deleted unseen: it was not shown in the browser that started this checkout in time.',
};

export function CheckoutResult(props: { result: CheckoutPageState | { state: 'off' }; portal: boolean; urls: BaseUrls }) {
  const { result, portal } = props;
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
              {result.packageName}: {formatNumber(result.units)} units. Send it as <code>Authorization: Bearer …</code> to the
              service&apos;s API or to its OpenAI-compatible API, as below.
            </p>
            <NextSteps portal={portal} />
          </div>
          <ApiExamples urls={props.urls} />
        </Card>
      );
    case 'key_issued':
      return (
        <Card title="Payment received">
          <p data-testid="key-issued">
            Your key for {result.packageName} (<code>{result.prefix}…</code>) was issued
            {KEY_ISSUED[result.secret]}
          </p>
          <NextSteps portal={portal} />
        </Card>
      );
    case 'topped_up':
      return (
        <Card title="Top-up received">
          <p data-testid="topped-up">
            {formatNumber(result.units)} units were added to key <code>{result.prefix}…</code>.
          </p>
          <NextSteps portal={portal} />
        </Card>
      );
    case 'processing':
      return (
        <Alert tone="warn">
          Your payment is still being confirmed. This page shows your key as soon as it is; it checks again every few seconds.
          <RefreshWhileProcessing />
        </Alert>
      );
    case 'expired':
      return (
        <Alert tone="warn">
          <span data-testid="checkout-expired">
            This checkout expired before it was paid; nothing was charged. Start again from the catalogue.
          </span>
        </Alert>
      );
    case 'refused':
      return (
        <Alert tone="error">
          <span data-testid="checkout-refused">
            The payment Stripe reported is not the price of this purchase, so no key was issued. The operator has been told and will refund
            or settle it; ask them.
          </span>
        </Alert>
      );
    case 'off':
      return <Alert tone="warn">Selling is off on this service: ask its operator for an API key.</Alert>;
    default:
      return <Alert tone="error">No purchase was found for this page. Start again from the catalogue, or ask the operator.</Alert>;
  }
}
