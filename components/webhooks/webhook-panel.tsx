'use client';
import { useState, type FormEvent } from 'react';
import { useFormAction } from '../forms/use-form-action';
import { CopyButton } from '../keys/copy-button';

/** The calls a webhook panel makes for its key: the operator's procedures, or the customer's in the portal. */
export interface WebhookActions {
  set(url: string): Promise<{ url: string; secret: string }>;
  rotateSecret(): Promise<{ secret: string }>;
  clear(): Promise<unknown>;
}

/**
 * Sets, rotates or clears a key's job webhook; a new signing secret is shown here once. `jobs`
 * names whose video jobs are meant ("a video job of this key", "one of your video jobs").
 */
export function WebhookPanel(props: { actions: WebhookActions; jobs: string; url: string | null; disabledAt: string | null }) {
  const { actions } = props;
  const { busy, message, run } = useFormAction();
  const [secret, setSecret] = useState<string | null>(null);

  async function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const url = String(new FormData(event.currentTarget).get('url') ?? '');
    await run(async () => {
      const set = await actions.set(url);
      setSecret(set.secret);
      return { tone: 'ok', text: `Job events are POSTed to ${set.url}.` };
    });
  }
  const rotate = () =>
    run(async () => {
      setSecret((await actions.rotateSecret()).secret);
      return { tone: 'ok', text: 'New signing secret; the old one no longer signs.' };
    });
  const clear = () =>
    run(async () => {
      await actions.clear();
      setSecret(null);
      return { tone: 'ok', text: 'Webhook removed.' };
    });

  return (
    <div className="stack">
      <p className="muted">
        {`When ${props.jobs} ends, `}
        <code>job.succeeded</code>, <code>job.failed</code> or <code>job.cancelled</code> is POSTed to this https endpoint, signed the
        Standard Webhooks way.
        {props.disabledAt ? ' The endpoint answered 410 Gone and is disabled: set it again to resume.' : ''}
      </p>
      <form className="filters" onSubmit={submit} aria-label="Webhook endpoint" noValidate>
        <div className="field wide">
          <label htmlFor="webhook-url">Endpoint URL</label>
          <input
            id="webhook-url"
            name="url"
            type="url"
            defaultValue={props.url ?? ''}
            placeholder="https://example.com/hooks/wgs"
            required
          />
        </div>
        <button className="button" type="submit" disabled={busy}>
          {props.url ? 'Save (new secret)' : 'Set webhook'}
        </button>
      </form>
      {props.url ? (
        <div className="filters">
          <button type="button" className="button button-secondary" disabled={busy} onClick={rotate}>
            Rotate secret
          </button>
          <button type="button" className="button button-secondary" disabled={busy} onClick={clear}>
            Remove webhook
          </button>
        </div>
      ) : null}
      {secret ? (
        <div className="alert alert-ok" data-testid="webhook-secret">
          <p>Signing secret, shown only now:</p>
          <code>{secret}</code> <CopyButton value={secret} label="Copy secret" />
        </div>
      ) : null}
      {message ? (
        <div className={`alert alert-${message.tone}`} role={message.tone === 'error' ? 'alert' : 'status'}>
          {message.text}
        </div>
      ) : null}
    </div>
  );
}

/** Sends one delivery again now, with the same webhook-id. */
export function ResendButton(props: { resend: () => Promise<unknown> }) {
  const { busy, message, run } = useFormAction();
  return (
    <>
      <button
        type="button"
        className="button button-secondary"
        disabled={busy}
        onClick={() =>
          run(async () => {
            await props.resend();
            return { tone: 'ok', text: 'Queued.' };
          })
        }
      >
        Resend
      </button>
      {message ? (
        <span role="status" className="muted">
          {' '}
          {message.text}
        </span>
      ) : null}
    </>
  );
}
