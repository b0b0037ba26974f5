'use client';
import { trpc } from '../trpc/client';
import { ResendButton, WebhookPanel } from '../webhooks/webhook-panel';

/** The operator's webhook panel of one key (the key page), through the dashboard's procedures. */
export function WebhookSettings(props: { id: string; url: string | null; disabledAt: string | null }) {
  const { id } = props;
  const actions = {
    set: (url: string) => trpc.keys.setWebhook.mutate({ id, url }),
    rotateSecret: () => trpc.keys.rotateWebhookSecret.mutate({ id }),
    clear: () => trpc.keys.clearWebhook.mutate({ id }),
  };
  return <WebhookPanel actions={actions} jobs="a video job of this key" url={props.url} disabledAt={props.disabledAt} />;
}

/** Sends a delivery again now, with the same webhook-id. */
export function ResendDelivery(props: { id: string; delivery: { id: string; event_type: string } }) {
  return (
    <ResendButton
      delivery={props.delivery}
      resend={() => trpc.keys.resendDelivery.mutate({ id: props.id, deliveryId: props.delivery.id })}
    />
  );
}
