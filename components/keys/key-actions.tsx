'use client';
import type { FormEvent } from 'react';
import { useFormAction } from '../forms/use-form-action';
import { formatNumber } from '../ui/format';
import { trpc } from '../trpc/client';

export function TopUpForm(props: { id: string }) {
  const { busy, message, setMessage, run } = useFormAction();

  async function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const formElement = event.currentTarget;
    const units = Number(new FormData(formElement).get('units'));
    if (!Number.isInteger(units) || units < 1 || units > 1_000_000_000) {
      setMessage({ tone: 'error', text: 'Units to add must be a whole number from 1 to 1,000,000,000' });
      return;
    }
    await run(async () => {
      const key = await trpc.keys.topUp.mutate({ id: props.id, units });
      formElement.reset();
      return { tone: 'ok', text: `Added ${formatNumber(units)} units; ${formatNumber(key.remaining_units)} remaining.` };
    });
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
