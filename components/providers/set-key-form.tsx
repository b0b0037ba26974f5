'use client';
import type { FormEvent } from 'react';
import { useFormAction } from '../forms/use-form-action';
import { trpc } from '../trpc/client';

/** Sets or replaces one provider's API key. The field is a password field and is cleared at once: the key is never shown again. */
export function SetProviderKeyForm(props: { provider: string; hasStoredKey: boolean }) {
  const { busy, message, setMessage, run } = useFormAction();
  const inputId = `provider-key-${props.provider}`;

  async function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const formElement = event.currentTarget;
    const apiKey = String(new FormData(formElement).get('apiKey') ?? '').trim();
    formElement.reset();
    if (apiKey === '') {
      setMessage({ tone: 'error', text: 'Paste the API key first.' });
      return;
    }
    await run(async () => {
      const result = await trpc.providers.setKey.mutate({ provider: props.provider, apiKey });
      return { tone: 'ok', text: `Key ${result.replaced ? 'replaced' : 'stored'}. Every instance uses it within 10 seconds.` };
    });
  }

  return (
    <form className="stack" onSubmit={submit} aria-label={`API key of ${props.provider}`} noValidate>
      <div className="filters">
        <div className="field">
          <label htmlFor={inputId}>{props.hasStoredKey ? 'New API key' : 'API key'}</label>
          <input id={inputId} name="apiKey" type="password" autoComplete="off" spellCheck={false} maxLength={4096} required />
        </div>
        <button className="button" type="submit" disabled={busy}>
          {busy ? 'Saving…' : props.hasStoredKey ? 'Replace key' : 'Set key'}
        </button>
      </div>
      {message ? (
        <div className={`alert alert-${message.tone}`} role={message.tone === 'error' ? 'alert' : 'status'}>
          {message.text}
        </div>
      ) : null}
    </form>
  );
}
