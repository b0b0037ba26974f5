'use client';
import { ResendButton, WebhookPanel } from '../webhooks/webhook-panel';
import { portalTrpc } from './portal-trpc';

const actions = {
  set: (url: string) => portalTrpc.setWebhook.mutate({ url }),
  rotateSecret: () => portalTrpc.rotateWebhookSecret.mutate(),
  clear: () => portalTrpc.clearWebhook.mutate(),
};

/** The customer's webhook panel in the portal, through the portal's procedures (their own key only). */
export function PortalWebhookSettings(props: { url: string | null; disabledAt: string | null }) {
  return <WebhookPanel actions={actions} jobs="one of your video jobs" url={props.url} disabledAt={props.disabledAt} />;
}

/** Sends one of the key's deliveries again now, with the same webhook-id. */
export function PortalResendDelivery(props: { deliveryId: string }) {
  return <ResendButton resend={() => portalTrpc.resendDelivery.mutate({ deliveryId: props.deliveryId })} />;
}
