'use client';
import { useState } from 'react';
import { useFormAction } from '../forms/use-form-action';
import { WebhookEndpointForm } from './webhook-endpoint-form';

/** The calls a webhook panel makes for its key (the operator's procedures), each a change made at once. */
export interface WebhookActions {
  set(url: string): Promise<{ url: string; secret: string }>;
  rotateSecret(): Promise<{ secret: string }>;
  clear(): Promise<unknown>;
}

/**
 * Sets, rotates or clears a key's job webhook at once; a new signing secret is shown once. `jobs`
 * names whose video jobs are meant ("a video job of this key"). The portal's, whose changes wait
 * for an e-mailed code, is components/portal/portal-webhook.tsx, the same form.
 */
export function WebhookPanel(props: { actions: WebhookActions; jobs: string; url: string | null; disabledAt: string | null }) {
  const { actions } = props;
  const { busy, message, run } = useFormAction();
  const [secret, setSecret] = useState<string | undefined>(undefined);
  const change = (make: () => Promise<{ text: string; secret?: string }>) =>
    run(async () => {
      setSecret(undefined);
      const made = await make();
      setSecret(made.secret);
      return { tone: 'ok', text: made.text };
    });

  return (
    <WebhookEndpointForm
      jobs={props.jobs}
      url={props.url}
      disabledAt={props.disabledAt}
      busy={busy}
      askFirst
      onSet={(url) =>
        void change(async () => {
          const set = await actions.set(url);
          return { text: `Job events are POSTed to ${set.url}.`, secret: set.secret };
        })
      }
      onRotate={() =>
        void change(async () => ({
          text: 'New signing secret; the old one no longer signs.',
          secret: (await actions.rotateSecret()).secret,
        }))
      }
      onClear={() =>
        void change(async () => {
          await actions.clear();
          return { text: 'Webhook removed.' };
        })
      }
      outcome={message?.tone === 'ok' ? { text: message.text, secret } : null}
      error={message?.tone === 'error' ? message.text : null}
      urlRefused={message?.fields?.includes('url')}
    />
  );
}

/** Sends one delivery again now, with the same webhook-id. */
export function ResendButton(props: { resend: () => Promise<unknown>; delivery: { id: string; event_type: string } }) {
  const { busy, message, run } = useFormAction();
  return (
    <>
      {/* Named by its delivery (each row has one); aria-disabled, not disabled, so the focus stays on it while it works. */}
      <button
        type="button"
        className="button button-secondary"
        aria-label={`Resend ${props.delivery.event_type} delivery ${props.delivery.id}`}
        aria-disabled={busy || undefined}
        onClick={() =>
          !busy &&
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
