'use client';
import { useRouter } from 'next/navigation';
import { useState } from 'react';
import { WebhookEndpointForm, type WebhookOutcome } from '../webhooks/webhook-endpoint-form';
import { ResendButton } from '../webhooks/webhook-panel';
import type { ConfirmedChange } from '@/server/trpc/outputs';
import { ConfirmCode, useChangeRequest } from './confirm-code';
import { portalTrpc } from './portal-trpc';

const WHAT = {
  set_webhook: 'set this webhook endpoint (with a new signing secret)',
  rotate_webhook_secret: "replace the webhook's signing secret",
  clear_webhook: 'remove the webhook',
} as const;

/** A webhook change the portal asks a code for (the key's rotation is rotate-key.tsx's). */
type ChangeRequest = Extract<Parameters<typeof portalTrpc.requestChange.mutate>[0], { action: keyof typeof WHAT }>;

/**
 * The customer's job webhook: each change is asked for here and made once the code e-mailed to
 * the key's buyer is entered; a new signing secret is shown once. The operator's, whose changes
 * are made at once, is components/webhooks/webhook-panel.tsx, the same form.
 */
export function PortalWebhookSettings(props: { url: string | null; disabledAt: string | null }) {
  const router = useRouter();
  const change = useChangeRequest();
  const [asked, setAsked] = useState<keyof typeof WHAT>('set_webhook');
  const [done, setDone] = useState<WebhookOutcome | null>(null);

  const ask = (request: ChangeRequest) => {
    setAsked(request.action);
    setDone(null);
    void change.request(request);
  };
  /** The controls come back in the code's place: the focus (which the code's form held) goes to the URL, not the page. */
  function cancelled() {
    change.reset();
    setTimeout(() => document.getElementById('webhook-url')?.focus());
  }
  function confirmed(result: ConfirmedChange) {
    change.reset();
    if (result.action === 'clear_webhook') setDone({ text: 'Webhook removed.' });
    else if (result.action !== 'rotate_key') setDone({ text: `Job events are POSTed to ${result.url}.`, secret: result.secret });
    router.refresh();
  }

  return (
    <WebhookEndpointForm
      jobs="one of your video jobs"
      note="Changes are confirmed by a code e-mailed to the key's buyer."
      url={props.url}
      disabledAt={props.disabledAt}
      busy={change.busy}
      onSet={(url) => ask({ action: 'set_webhook', url })}
      onRotate={() => ask({ action: 'rotate_webhook_secret' })}
      onClear={() => ask({ action: 'clear_webhook' })}
      outcome={done}
      error={change.error}
      urlRefused={change.errorFields.includes('url')}
      awaiting={
        change.sentTo ? <ConfirmCode sentTo={change.sentTo} what={WHAT[asked]} onConfirmed={confirmed} onCancel={cancelled} /> : undefined
      }
    />
  );
}

/** Sends one of the key's deliveries again now, with the same webhook-id. */
export function PortalResendDelivery(props: { delivery: { id: string; event_type: string } }) {
  return <ResendButton delivery={props.delivery} resend={() => portalTrpc.resendDelivery.mutate({ deliveryId: props.delivery.id })} />;
}
