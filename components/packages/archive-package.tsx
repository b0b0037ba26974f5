'use client';
import { trpc } from '../trpc/client';
import { ConfirmDialog, ErrorAlert, useRefreshingAction } from '../ui/confirm-dialog';

/** Archive (with an in-page confirmation naming the package) or restore a package. */
export function ArchivePackage(props: { slug: string; archived: boolean }) {
  const setArchived = (archived: boolean) => trpc.packages.setArchived.mutate({ slug: props.slug, archived });
  const restore = useRefreshingAction(() => setArchived(false));
  if (!props.archived) {
    return (
      <ConfirmDialog
        openLabel="Archive package"
        openTone="secondary"
        question={`Archive ${props.slug}?`}
        consequence="No new keys can be issued on it. Keys already issued keep working on their version. You can restore it later."
        confirmLabel={`Archive ${props.slug}`}
        busyLabel="Archiving…"
        action={() => setArchived(true)}
      />
    );
  }
  return (
    <div className="stack">
      <div className="actions">
        <button type="button" className="button button-secondary" onClick={() => void restore.run()} disabled={restore.busy}>
          {restore.busy ? 'Restoring…' : 'Restore package'}
        </button>
      </div>
      <ErrorAlert error={restore.error} />
    </div>
  );
}
