'use client';
import { useEffect, useRef, useState } from 'react';
import { OPERATOR_ROLES, type OperatorRole } from '@/server/contract/dashboard/roles';
import { describeError, trpc } from '../trpc/client';
import { ConfirmDialog, ConfirmQuestion, ErrorAlert, useQuestion, useRefreshingAction } from '../ui/confirm-dialog';
import { ownRoleChange } from './own-role';

/** An owner's controls for one operator: their role, and whether they may sign in. Audited. `self`: the signed-in operator. */
export function OperatorControls(props: { email: string; role: OperatorRole; disabled: boolean; self?: boolean }) {
  const [role, setRole] = useState<OperatorRole>(props.role);
  // Saved, the focus (lost with the disabled button) goes back to the role, and the change is said.
  const [saved, setSaved] = useState(0);
  const roleSelect = useRef<HTMLSelectElement>(null);
  useEffect(() => {
    if (saved > 0) roleSelect.current?.focus();
  }, [saved]);
  const save = useRefreshingAction(() => trpc.operators.setRole.mutate({ email: props.email, role }), {
    onDone: () => setSaved((count) => count + 1),
  });
  const enable = useRefreshingAction(() => trpc.operators.setDisabled.mutate({ email: props.email, disabled: false }));
  const own = useOwnRole(props.email, role);
  const busy = save.busy || enable.busy || own.busy;
  const selectId = `role-${props.email}`;
  const change = ownRoleChange(props.role, role);
  return (
    <div className="stack">
      <div className="actions">
        <label htmlFor={selectId} className="visually-hidden">
          Role of {props.email}
        </label>
        <select
          ref={roleSelect}
          id={selectId}
          value={role}
          onChange={(event) => setRole(event.target.value as OperatorRole)}
          disabled={busy || own.question.asking !== null}
        >
          {OPERATOR_ROLES.map((option) => (
            <option key={option} value={option}>
              {option}
            </option>
          ))}
        </select>
        <button
          ref={own.question.opener('confirm')}
          type="button"
          className="button button-secondary"
          // One's own role asks first, as Disable does: an owner who steps down loses this page.
          onClick={() => (props.self ? own.question.ask('confirm') : void save.run())}
          disabled={busy || role === props.role || own.question.asking !== null}
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
      {own.question.asking ? (
        <ConfirmQuestion
          question={change.question}
          consequence={change.consequence}
          confirmLabel={own.busy ? 'Saving…' : `Change my role to ${role}`}
          busy={own.busy}
          onConfirm={() => void own.run(change.leaveFor)}
          onCancel={own.question.cancel}
        >
          <ErrorAlert error={own.error} />
        </ConfirmQuestion>
      ) : null}
      <span role="status" className="muted">
        {saved > 0 && !save.busy && !save.error ? `Role saved: ${role}.` : ''}
      </span>
      <ErrorAlert error={save.error ?? enable.error} />
    </div>
  );
}

/**
 * The signed-in operator's own role change, once confirmed. Leaving for another page loads it
 * afresh (the layout's navigation and role too), rather than refreshing a page the new role cannot see.
 */
function useOwnRole(email: string, role: OperatorRole) {
  const question = useQuestion<'confirm'>();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  async function run(leaveFor: string | null) {
    setBusy(true);
    setError(null);
    try {
      await trpc.operators.setRole.mutate({ email, role });
      window.location.assign(leaveFor ?? window.location.href);
    } catch (failure) {
      setError(describeError(failure).message);
      setBusy(false);
    }
  }
  return { question, busy, error, run };
}
