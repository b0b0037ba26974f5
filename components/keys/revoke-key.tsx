'use client';
import { trpc } from '../trpc/client';
import { ConfirmDialog } from '../ui/confirm-dialog';

/** Revoking asks in the page and names the key it will revoke. */
export function RevokeKey(props: { id: string; prefix: string; label: string | null }) {
  const name = props.label ? `${props.prefix}… (${props.label})` : `${props.prefix}…`;
  return (
    <ConfirmDialog
      openLabel="Revoke key"
      openTone="danger"
      question={`Revoke ${name}?`}
      consequence="Requests with this key are refused at once, on every instance. This cannot be undone."
      confirmLabel={`Revoke ${props.prefix}…`}
      busyLabel="Revoking…"
      action={() => trpc.keys.revoke.mutate({ id: props.id })}
      keepOpen
    />
  );
}
