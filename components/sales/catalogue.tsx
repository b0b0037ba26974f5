import { Card, DetailList, EmptyState } from '@/components/ui/card';
import { formatBytes, formatNumber, operationName } from '@/components/ui/format';
import type { CatalogueEntry } from '@/server/contract/sales-pages';
import { formatPrice } from './money';

/** One package for sale: what it includes and a button that starts Stripe Checkout. */
function PackageOffer({ entry }: { entry: CatalogueEntry }) {
  return (
    <Card title={entry.name} id={`package-${entry.slug}`}>
      <p className="offer-price" data-testid={`price-${entry.slug}`}>
        {formatPrice(entry.price.amount, entry.price.currency)}
      </p>
      <DetailList
        items={[
          ['Units', formatNumber(entry.quotaUnits)],
          ['Requests per minute', formatNumber(entry.limits.requestsPerMinute)],
          ['Concurrent requests', formatNumber(entry.limits.concurrency)],
          ['Largest upload', formatBytes(entry.limits.maxUploadBytes)],
        ]}
      />
      <h3 className="offer-subtitle">Operations</h3>
      <ul className="offer-list">
        {entry.operations.map((operation) => (
          <li key={operation.name}>
            {operationName(operation.name)} (<code>{operation.name}</code>) · {formatNumber(operation.units)}{' '}
            {operation.units === 1 ? 'unit' : 'units'} a call
          </li>
        ))}
      </ul>
      {entry.topUps.length > 0 ? (
        <p className="muted">
          Top-ups later:{' '}
          {entry.topUps.map((pack) => `${formatNumber(pack.units)} units for ${formatPrice(pack.amount, entry.price.currency)}`).join(', ')}
        </p>
      ) : null}
      <form method="post" action="/buy/checkout">
        <input type="hidden" name="package_version_id" value={entry.packageVersionId} />
        <button className="button" type="submit">
          Buy {entry.name} for {formatPrice(entry.price.amount, entry.price.currency)}
        </button>
      </form>
    </Card>
  );
}

export function Catalogue({ packages }: { packages: CatalogueEntry[] }) {
  if (packages.length === 0) {
    return <EmptyState title="Nothing is for sale right now.">Ask the operator of this service for a key.</EmptyState>;
  }
  return (
    <div className="grid">
      {packages.map((entry) => (
        <PackageOffer key={entry.packageVersionId} entry={entry} />
      ))}
    </div>
  );
}
