'use client';
import { useRouter } from 'next/navigation';
import { useState, type FormEvent } from 'react';
import { describeError, trpc } from '../trpc/client';

export function TopUpForm(props: { id: string }) {
  const router = useRouter();
  const [message, setMessage] = useState<{ tone: 'ok' | 'error'; text: string } | null>(null);
  const [busy, setBusy] = useState(false);

  async function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const formElement = event.currentTarget;
    const units = Number(new FormData(formElement).get('units'));
    if (!Number.isInteger(units) || units < 1 || units > 1_000_000_000) {
      setMessage({ tone: 'error', text: 'Units to add must be a whole number from 1 to 1,000,000,000' });
      return;
    }
    setBusy(true);
    setMessage(null);
    try {
      const key = await trpc.keys.topUp.mutate({ id: props.id, units });
      setMessage({ tone: 'ok', text: `Added ${units} units; ${key.remaining_units} remaining.` });
      formElement.reset();
      router.refresh();
    } catch (failure) {
      setMessage({ tone: 'error', text: describeError(failure).message });
    } finally {
      setBusy(false);
    }
  }

  return (
    <form className="stack" onSubmit={submit} aria-label="Top up units" noValidate>
      <div className="filters">
        <div className="field">
          <label htmlFor="topup-units">Units to add</label>
          <input
            id="topup-units"
            name="units"
            type="number"
            min={1}
            max={1_000_000_000}
            step={1}
            required
            aria-invalid={message?.tone === 'error' ? true : undefined}
            aria-describedby={message ? 'topup-message' : undefined}
          />
        </div>
        <button className="button" type="submit" disabled={busy}>
          {busy ? 'Adding…' : 'Top up'}
        </button>
      </div>
      {message ? (
        <div id="topup-message" className={`alert alert-${message.tone}`} role={message.tone === 'error' ? 'alert' : 'status'}>
          {message.text}
        </div>
      ) : null}
    </form>
  );
}
