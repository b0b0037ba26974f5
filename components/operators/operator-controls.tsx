'use client';
import { useState } from 'react';
import { OPERATOR_ROLES, type OperatorRole } from '@/server/contract/dashboard/roles';
import { trpc } from '../trpc/client';
import { ConfirmDialog, ErrorAlert, useRefreshingAction } from '../ui/confirm-dialog';

/** An owner's controls for one operator: their role, and whether they may sign in. Audited. */
export function OperatorControls(props: { email: string; role: OperatorRole; disabled: boolean }) {
  const [role, setRole] = useState<OperatorRole>(props.role);
  const save = useRefreshingAction(() => trpc.operators.setRole.mutate({ email: props.email, role }));
  const enable = useRefreshingAction(() => trpc.operators.setDisabled.mutate({ email: props.email, disabled: false }));
  const busy = save.busy || enable.busy;
  const selectId = `role-${props.email}`;
  return (
    <div className="stack">
      <div className="actions">
        <label htmlFor={selectId} className="visually-hidden">
          Role of {props.email}
        </label>
        <select id={selectId} value={role} onChange={(event) => setRole(event.target.value as OperatorRole)} disabled={busy}>
          {OPERATOR_ROLES.map((option) => (
            <option key={option} value={option}>
              {option}
            </option>
          ))}
        </select>
        <button
          type="button"
          className="button button-secondary"
          onClick={() => void save.run()}
          disabled={busy || role === props.role}
          aria-label={`Save the role of ${props.email}`}
        >
          {save.busy ? 'Saving…' : 'Save role'}
        </button>
        {props.disabled ? (
          <button
            type="button"
            className="button button-secondary"
            onClick={() => void enable.run()}
            disabled={busy}
            aria-label={`Enable ${props.email}`}
          >
            Enable
          </button>
        ) : (
          // Disabling signs the operator out at once: it asks first.
          <ConfirmDialog
            openLabel="Disable"
            openName={`Disable ${props.email}`}
            openTone="secondary"
            question={`Disable ${props.email}?`}
            consequence="Their sessions end at once, and they cannot sign in until an owner enables them again."
            confirmLabel="Disable"
            busyLabel="Disabling…"
            action={() => trpc.operators.setDisabled.mutate({ email: props.email, disabled: true })}
          />
        )}
      </div>
      <ErrorAlert error={save.error ?? enable.error} />
    </div>
  );
}
