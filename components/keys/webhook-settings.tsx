'use client';
import { useState, type FormEvent } from 'react';
import { useFormAction } from '../forms/use-form-action';
import { trpc } from '../trpc/client';
import { CopyButton } from './copy-button';

/** Sets, rotates or clears a key's job webhook; a new signing secret is shown here once. */
export function WebhookSettings(props: { id: string; url: string | null; disabledAt: string | null }) {
  const { busy, message, run } = useFormAction();
  const [secret, setSecret] = useState<string | null>(null);

  async function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const url = String(new FormData(event.currentTarget).get('url') ?? '');
    await run(async () => {
      const set = await trpc.keys.setWebhook.mutate({ id: props.id, url });
      setSecret(set.secret);
      return { tone: 'ok', text: `Job events are POSTed to ${set.url}.` };
    });
  }

  return (
    <div className="stack">
      <p className="muted">
        When a video job of this key ends, <code>job.succeeded</code>, <code>job.failed</code> or <code>job.cancelled</code> is POSTed to
        this https endpoint, signed the Standard Webhooks way.
        {props.disabledAt ? ' The endpoint answered 410 Gone and is disabled: set it again to resume.' : ''}
      </p>
      <form className="filters" onSubmit={submit} aria-label="Webhook endpoint" noValidate>
        <div className="field">
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
          <button
            type="button"
            className="button button-secondary"
            disabled={busy}
            onClick={() =>
              run(async () => {
                const rotated = await trpc.keys.rotateWebhookSecret.mutate({ id: props.id });
                setSecret(rotated.secret);
                return { tone: 'ok', text: 'New signing secret; the old one no longer signs.' };
              })
            }
          >
            Rotate secret
          </button>
          <button
            type="button"
            className="button button-secondary"
            disabled={busy}
            onClick={() =>
              run(async () => {
                await trpc.keys.clearWebhook.mutate({ id: props.id });
                setSecret(null);
                return { tone: 'ok', text: 'Webhook removed.' };
              })
            }
          >
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

/** Sends a delivery again now, with the same webhook-id. */
export function ResendDelivery(props: { id: string; deliveryId: string }) {
  const { busy, message, run } = useFormAction();
  return (
    <>
      <button
        type="button"
        className="button button-secondary"
        disabled={busy}
        onClick={() =>
          run(async () => {
            await trpc.keys.resendDelivery.mutate({ id: props.id, deliveryId: props.deliveryId });
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
