'use client';
import { useState } from 'react';
import { formatMinor } from '../sales/money';
import { describeError } from '../trpc/client';
import { ErrorAlert } from '../ui/confirm-dialog';
import { formatNumber } from '../ui/format';
import { portalTrpc } from './portal-trpc';

/** One button per top-up pack: each opens Stripe's checkout, which comes back to the portal. */
export function PortalTopUp(props: { packs: { units: number; minor: number }[]; currency: string }) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);

  async function buy(units: number) {
    setBusy(true);
    setError(null);
    try {
      const { url } = await portalTrpc.buyTopUp.mutate({ units });
      window.location.assign(url);
    } catch (failure) {
      setError(describeError(failure).message);
      setBusy(false);
    }
  }

  return (
    <div className="stack">
      <div className="actions">
        {props.packs.map((pack) => (
          <button key={pack.units} type="button" className="button" disabled={busy} onClick={() => void buy(pack.units)}>
            Buy {formatNumber(pack.units)} units for {formatMinor(pack.minor, props.currency)}
          </button>
        ))}
      </div>
      <ErrorAlert error={error} />
    </div>
  );
}
