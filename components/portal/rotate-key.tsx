'use client';
import { useRouter } from 'next/navigation';
import { useState } from 'react';
import { CopyButton } from '../keys/copy-button';
import { describeError } from '../trpc/client';
import { ErrorAlert } from '../ui/confirm-dialog';
import { portalTrpc } from './portal-trpc';

/**
 * Replaces the key's secret. The new one is shown here once; the old one is refused at once, and
 * this session (signed in with the old one) has ended, so the page offers to sign in again.
 */
export function RotateKey(props: { prefix: string }) {
  const router = useRouter();
  const [rotated, setRotated] = useState<{ secret: string; prefix: string } | null>(null);
  const [asking, setAsking] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);

  // No refresh after it: the page would render the sign-in form (the session ended) before the secret is seen.
  async function rotate() {
    setBusy(true);
    setError(null);
    try {
      setRotated(await portalTrpc.rotateKey.mutate());
    } catch (failure) {
      setError(describeError(failure).message);
      setBusy(false);
    }
  }

  if (rotated) {
    return (
      <div className="stack">
        <div className="alert alert-ok" data-testid="rotated-secret">
          <p>Your new API key, shown only now. Store it before you leave this page:</p>
          <code>{rotated.secret}</code> <CopyButton value={rotated.secret} label="Copy key" />
        </div>
        <p className="muted">
          The old key ({props.prefix}…) is refused from now on, and this portal session ended with it. Units, history and the webhook stay.
        </p>
        <div className="actions">
          <button type="button" className="button" onClick={() => router.refresh()}>
            Sign in with the new key
          </button>
        </div>
      </div>
    );
  }
  return (
    <div className="stack">
      {asking ? (
        <div
          className="confirm"
          role="alertdialog"
          aria-labelledby="rotate-question"
          onKeyDown={(event) => event.key === 'Escape' && setAsking(false)}
        >
          <strong id="rotate-question">Replace the secret of {props.prefix}…?</strong>
          <span>The current key stops working at once, everywhere it is used. The new key is shown once; units and history stay.</span>
          <div className="actions">
            <button type="button" className="button button-danger" onClick={() => void rotate()} disabled={busy}>
              {busy ? 'Rotating…' : 'Rotate now'}
            </button>
            <button type="button" className="button button-secondary" onClick={() => setAsking(false)} disabled={busy} autoFocus>
              Cancel
            </button>
          </div>
        </div>
      ) : (
        <div className="actions">
          <button type="button" className="button button-secondary" onClick={() => setAsking(true)}>
            Rotate key
          </button>
        </div>
      )}
      <ErrorAlert error={error} />
    </div>
  );
}
