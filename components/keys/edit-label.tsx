'use client';
import { useRouter } from 'next/navigation';
import { useEffect, useRef, useState, type FormEvent } from 'react';
import { keyLabelInput } from '@/server/contract/dashboard/key-forms';
import { fieldErrors } from '../forms/plain-issues';
import { describeError, trpc } from '../trpc/client';

/** Renames a key in place; an empty label removes it. Audited as key.label. */
export function EditLabel(props: { id: string; label: string | null }) {
  const router = useRouter();
  const [editing, setEditing] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  // Saved or cancelled, the focus goes back to "Edit label" (it would fall to the page with the form).
  const opener = useRef<HTMLButtonElement>(null);
  const wasEditing = useRef(false);
  useEffect(() => {
    if (!editing && wasEditing.current) opener.current?.focus();
    wasEditing.current = editing;
  }, [editing]);

  async function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const input = { label: String(new FormData(event.currentTarget).get('label') ?? '').trim() || null };
    const parsed = keyLabelInput.safeParse(input);
    if (!parsed.success) {
      setError(fieldErrors(parsed.error, input, () => 'Label', keyLabelInput).label ?? 'Label is not valid');
      return;
    }
    setBusy(true);
    setError(null);
    try {
      await trpc.keys.updateLabel.mutate({ id: props.id, label: parsed.data.label });
      setEditing(false);
      router.refresh();
    } catch (failure) {
      setError(describeError(failure).message);
    } finally {
      setBusy(false);
    }
  }

  if (!editing) {
    return (
      <span className="actions">
        <span data-testid="key-label">{props.label ?? <span className="muted">No label</span>}</span>
        <button ref={opener} type="button" className="button-link" onClick={() => setEditing(true)}>
          Edit label
        </button>
      </span>
    );
  }
  return (
    <form
      className="actions"
      onSubmit={submit}
      onKeyDown={(event) => {
        if (event.key === 'Escape') setEditing(false);
      }}
      aria-label="Edit the key's label"
      noValidate
    >
      <div className="field">
        <label htmlFor="key-label-input" className="visually-hidden">
          Label
        </label>
        <input
          id="key-label-input"
          name="label"
          type="text"
          defaultValue={props.label ?? ''}
          maxLength={200}
          autoFocus
          aria-invalid={error ? true : undefined}
          aria-describedby={error ? 'key-label-error' : undefined}
        />
        {error ? (
          <span className="error" id="key-label-error">
            {error}
          </span>
        ) : null}
      </div>
      <button className="button" type="submit" disabled={busy}>
        {busy ? 'Saving…' : 'Save'}
      </button>
      <button className="button button-secondary" type="button" onClick={() => setEditing(false)}>
        Cancel
      </button>
    </form>
  );
}
