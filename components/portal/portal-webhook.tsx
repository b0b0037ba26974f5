'use client';
import { useState, type FormEvent } from 'react';
import { useFormAction } from '../forms/use-form-action';
import { CopyButton } from '../keys/copy-button';
import { portalTrpc } from './portal-trpc';

/** The customer sets, rotates or clears their key's job webhook; a new signing secret is shown once. */
export function PortalWebhookSettings(props: { url: string | null; disabledAt: string | null }) {
  const { busy, message, run } = useFormAction();
  const [secret, setSecret] = useState<string | null>(null);

  async function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const url = String(new FormData(event.currentTarget).get('url') ?? '');
    await run(async () => {
      const set = await portalTrpc.setWebhook.mutate({ url });
      setSecret(set.secret);
      return { tone: 'ok', text: `Job events are POSTed to ${set.url}.` };
    });
  }
  const secretAction = (rotate: boolean) =>
    run(async () => {
      if (rotate) setSecret((await portalTrpc.rotateWebhookSecret.mutate()).secret);
      else await portalTrpc.clearWebhook.mutate();
      if (!rotate) setSecret(null);
      return { tone: 'ok', text: rotate ? 'New signing secret; the old one no longer signs.' : 'Webhook removed.' };
    });

  return (
    <div className="stack">
      <p className="muted">
        When one of your video jobs ends, <code>job.succeeded</code>, <code>job.failed</code> or <code>job.cancelled</code> is POSTed to
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
          <button type="button" className="button button-secondary" disabled={busy} onClick={() => secretAction(true)}>
            Rotate secret
          </button>
          <button type="button" className="button button-secondary" disabled={busy} onClick={() => secretAction(false)}>
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

/** Sends one of the key's deliveries again now, with the same webhook-id. */
export function PortalResendDelivery(props: { deliveryId: string }) {
  const { busy, message, run } = useFormAction();
  return (
    <>
      <button
        type="button"
        className="button button-secondary"
        disabled={busy}
        onClick={() =>
          run(async () => {
            await portalTrpc.resendDelivery.mutate({ deliveryId: props.deliveryId });
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
