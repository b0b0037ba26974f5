'use client';
import { useRouter } from 'next/navigation';
import { useState, type FormEvent } from 'react';
import { CopyButton } from '../keys/copy-button';
import { ResendButton } from '../webhooks/webhook-panel';
import type { ConfirmedChange } from '@/server/domain/portal/confirm-change';
import { ConfirmCode, useChangeRequest } from './confirm-code';
import { portalTrpc } from './portal-trpc';

const WHAT = {
  set_webhook: 'set this webhook endpoint (with a new signing secret)',
  rotate_webhook_secret: "replace the webhook's signing secret",
  clear_webhook: 'remove the webhook',
} as const;

/**
 * The customer's job webhook: each change is asked for here and made once the code e-mailed to
 * the key's buyer is entered; a new signing secret is shown once.
 */
export function PortalWebhookSettings(props: { url: string | null; disabledAt: string | null }) {
  const router = useRouter();
  const change = useChangeRequest();
  const [asked, setAsked] = useState<keyof typeof WHAT>('set_webhook');
  const [done, setDone] = useState<{ text: string; secret?: string } | null>(null);

  async function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    setAsked('set_webhook');
    setDone(null);
    await change.request({ action: 'set_webhook', url: String(new FormData(event.currentTarget).get('url') ?? '') });
  }
  const ask = (action: 'rotate_webhook_secret' | 'clear_webhook') => {
    setAsked(action);
    setDone(null);
    void change.request({ action });
  };
  function confirmed(result: ConfirmedChange) {
    change.reset();
    if (result.action === 'clear_webhook') setDone({ text: 'Webhook removed.' });
    else if (result.action !== 'rotate_key') setDone({ text: `Job events are POSTed to ${result.url}.`, secret: result.secret });
    router.refresh();
  }

  return (
    <div className="stack">
      <p className="muted">
        When one of your video jobs ends, <code>job.succeeded</code>, <code>job.failed</code> or <code>job.cancelled</code> is POSTed to
        this https endpoint, signed the Standard Webhooks way. Changes are confirmed by a code e-mailed to the key&apos;s buyer.
        {props.disabledAt ? ' The endpoint answered 410 Gone and is disabled: set it again to resume.' : ''}
      </p>
      {change.sentTo ? (
        <ConfirmCode sentTo={change.sentTo} what={WHAT[asked]} onConfirmed={confirmed} onCancel={change.reset} />
      ) : (
        <>
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
            <button className="button" type="submit" disabled={change.busy}>
              {props.url ? 'Save (new secret)' : 'Set webhook'}
            </button>
          </form>
          {props.url ? (
            <div className="filters">
              <button type="button" className="button button-secondary" disabled={change.busy} onClick={() => ask('rotate_webhook_secret')}>
                Rotate secret
              </button>
              <button type="button" className="button button-secondary" disabled={change.busy} onClick={() => ask('clear_webhook')}>
                Remove webhook
              </button>
            </div>
          ) : null}
        </>
      )}
      {done?.secret ? (
        <div className="alert alert-ok" data-testid="webhook-secret">
          <p>{done.text} Signing secret, shown only now:</p>
          <code>{done.secret}</code> <CopyButton value={done.secret} label="Copy secret" />
        </div>
      ) : done ? (
        <div className="alert alert-ok" role="status">
          {done.text}
        </div>
      ) : null}
      {change.error ? (
        <div className="alert alert-error" role="alert">
          {change.error}
        </div>
      ) : null}
    </div>
  );
}

/** Sends one of the key's deliveries again now, with the same webhook-id. */
export function PortalResendDelivery(props: { deliveryId: string }) {
  return <ResendButton resend={() => portalTrpc.resendDelivery.mutate({ deliveryId: props.deliveryId })} />;
}
