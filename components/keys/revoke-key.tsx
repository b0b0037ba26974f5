'use client';
import { useRouter } from 'next/navigation';
import { useEffect, useRef, useState } from 'react';
import { describeError, trpc } from '../trpc/client';

/** Revoking asks in the page (not the browser's confirm box) and names the key it will revoke. */
export function RevokeKey(props: { id: string; prefix: string; label: string | null }) {
  const router = useRouter();
  const [asking, setAsking] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const cancel = useRef<HTMLButtonElement>(null);
  const open = useRef<HTMLButtonElement>(null);
  const name = props.label ? `${props.prefix}… (${props.label})` : `${props.prefix}…`;
  useEffect(() => {
    if (asking) cancel.current?.focus();
  }, [asking]);

  async function revoke() {
    setBusy(true);
    setError(null);
    try {
      await trpc.keys.revoke.mutate({ id: props.id });
      router.refresh();
    } catch (failure) {
      setError(describeError(failure).message);
      setBusy(false);
    }
  }

  if (!asking) {
    return (
      <div className="actions">
        <button ref={open} type="button" className="button button-danger" onClick={() => setAsking(true)}>
          Revoke key
        </button>
      </div>
    );
  }
  return (
    <div
      className="confirm"
      role="alertdialog"
      aria-labelledby="revoke-question"
      onKeyDown={(event) => {
        if (event.key === 'Escape') setAsking(false);
      }}
    >
      <strong id="revoke-question">Revoke {name}?</strong>
      <span>Requests with this key are refused at once, on every instance. This cannot be undone.</span>
      <div className="actions">
        <button type="button" className="button button-danger" onClick={() => void revoke()} disabled={busy}>
          {busy ? 'Revoking…' : `Revoke ${props.prefix}…`}
        </button>
        <button ref={cancel} type="button" className="button button-secondary" onClick={() => setAsking(false)} disabled={busy}>
          Cancel
        </button>
      </div>
      {error ? (
        <div className="alert alert-error" role="alert">
          {error}
        </div>
      ) : null}
    </div>
  );
}
