'use client';
import { useState, type FormEvent } from 'react';
import { describeError } from '../trpc/client';
import { capitalised } from '../ui/format';
import type { ConfirmedChange } from '@/server/trpc/outputs';
import { portalTrpc } from './portal-trpc';

/** A failed portal call's sentence: the field's own message when the server named one (a wrong code). */
export function portalErrorText(failure: unknown): string {
  const described = describeError(failure);
  const issue = described.issues[0]?.message;
  if (!issue) return described.message;
  return `${capitalised(issue)}${issue.endsWith('.') ? '' : '.'}`;
}

/** Asks for a change and, with the code the buyer was e-mailed, makes it: `sentTo` set means a code is waiting. */
export function useChangeRequest() {
  const [sentTo, setSentTo] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [errorFields, setErrorFields] = useState<string[]>([]);
  async function request(input: Parameters<typeof portalTrpc.requestChange.mutate>[0]) {
    setBusy(true);
    setError(null);
    setErrorFields([]);
    try {
      setSentTo((await portalTrpc.requestChange.mutate(input)).sent_to);
    } catch (failure) {
      setError(portalErrorText(failure));
      setErrorFields(describeError(failure).issues.map((issue) => issue.path));
    }
    setBusy(false);
  }
  return { sentTo, busy, error, errorFields, request, reset: () => setSentTo(null) };
}

/** The code from the e-mail; `onConfirmed` gets what the change returned (a new secret is shown once). */
export function ConfirmCode(props: { sentTo: string; what: string; onConfirmed: (result: ConfirmedChange) => void; onCancel: () => void }) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);

  async function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const code = String(new FormData(event.currentTarget).get('code') ?? '');
    setBusy(true);
    setError(null);
    try {
      props.onConfirmed(await portalTrpc.confirmChange.mutate({ code }));
    } catch (failure) {
      setError(portalErrorText(failure));
      setBusy(false);
    }
  }

  return (
    <form className="stack" onSubmit={submit} aria-label={`Confirm: ${props.what}`} data-testid="confirm-code">
      <p role="status">
        To {props.what}, enter the code we e-mailed to <strong>{props.sentTo}</strong> (it works once, for 15 minutes, in this browser).
      </p>
      <div className="filters">
        <div className="field">
          <label htmlFor="confirm-code-input">Code from the e-mail</label>
          <input id="confirm-code-input" name="code" type="text" autoComplete="one-time-code" placeholder="XXXX-XXXX" required autoFocus />
        </div>
        <button className="button" type="submit" disabled={busy}>
          {busy ? 'Confirming…' : 'Confirm'}
        </button>
        <button className="button button-secondary" type="button" onClick={props.onCancel} disabled={busy}>
          Cancel
        </button>
      </div>
      {error ? (
        <div className="alert alert-error" role="alert">
          {error}
        </div>
      ) : null}
    </form>
  );
}
