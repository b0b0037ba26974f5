'use client';
import { useRouter } from 'next/navigation';
import { useState, type FormEvent } from 'react';
import { describeError, trpc } from '../trpc/client';

/** Sets or replaces a provider's key: write-only, stored encrypted, never shown again. */
export function SetKeyForm(props: { provider: string; hasStoredKey: boolean }) {
  const router = useRouter();
  const [message, setMessage] = useState<{ tone: 'ok' | 'error'; text: string } | null>(null);
  const [busy, setBusy] = useState(false);

  async function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const formElement = event.currentTarget;
    const apiKey = String(new FormData(formElement).get('api_key') ?? '').trim();
    if (!apiKey) {
      setMessage({ tone: 'error', text: 'Paste the key first.' });
      return;
    }
    setBusy(true);
    setMessage(null);
    try {
      const result = await trpc.providers.setKey.mutate({ provider: props.provider, apiKey });
      formElement.reset();
      setMessage({ tone: 'ok', text: `${result.replaced ? 'Key replaced' : 'Key stored'}, encrypted. It is never shown again.` });
      router.refresh();
    } catch (failure) {
      setMessage({ tone: 'error', text: describeError(failure).message });
    } finally {
      setBusy(false);
    }
  }

  return (
    <form className="stack" onSubmit={submit} aria-label="Provider key" noValidate autoComplete="off">
      <div className="filters">
        <div className="field">
          <label htmlFor="provider-api-key">{props.hasStoredKey ? 'New key' : 'Key'}</label>
          <input id="provider-api-key" name="api_key" type="password" autoComplete="new-password" spellCheck={false} required />
        </div>
        <button className="button" type="submit" disabled={busy}>
          {busy ? 'Storing…' : props.hasStoredKey ? 'Replace key' : 'Store key'}
        </button>
      </div>
      {message ? <div className={`alert alert-${message.tone}`} role={message.tone === 'error' ? 'alert' : 'status'}>{message.text}</div> : null}
    </form>
  );
}
