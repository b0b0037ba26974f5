'use client';
import { useRouter } from 'next/navigation';
import { useEffect, useRef, useState } from 'react';
import { describeError, trpc } from '../trpc/client';

/** Archive (with an in-page confirmation naming the package) or restore a package. */
export function ArchivePackage(props: { slug: string; archived: boolean }) {
  const router = useRouter();
  const [asking, setAsking] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const cancel = useRef<HTMLButtonElement>(null);
  useEffect(() => {
    if (asking) cancel.current?.focus();
  }, [asking]);

  async function set(archived: boolean) {
    setBusy(true);
    setError(null);
    try {
      await trpc.packages.setArchived.mutate({ slug: props.slug, archived });
      setAsking(false);
      router.refresh();
    } catch (failure) {
      setError(describeError(failure).message);
    } finally {
      setBusy(false);
    }
  }

  if (props.archived) {
    return (
      <div className="stack">
        <div className="actions">
          <button type="button" className="button button-secondary" onClick={() => void set(false)} disabled={busy}>
            {busy ? 'Restoring…' : 'Restore package'}
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
  if (!asking) {
    return (
      <div className="actions">
        <button type="button" className="button button-secondary" onClick={() => setAsking(true)}>
          Archive package
        </button>
      </div>
    );
  }
  return (
    <div
      className="confirm"
      role="alertdialog"
      aria-labelledby="archive-question"
      onKeyDown={(event) => event.key === 'Escape' && setAsking(false)}
    >
      <strong id="archive-question">Archive {props.slug}?</strong>
      <span>No new keys can be issued on it. Keys already issued keep working on their version. You can restore it later.</span>
      <div className="actions">
        <button type="button" className="button button-danger" onClick={() => void set(true)} disabled={busy}>
          {busy ? 'Archiving…' : `Archive ${props.slug}`}
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
