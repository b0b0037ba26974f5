import { portalDeliveryInput, portalNoInput, portalWebhookInput } from '../../contract/portal';
import { getSqlDb } from '../../db/client';
import { getPortalOverview } from '../../domain/portal/portal-overview';
import { customerActor, rotateKeySecret } from '../../domain/portal/rotate-key';
import {
  clearKeyWebhook,
  getKeyWebhook,
  listKeyDeliveries,
  resendDelivery,
  rotateKeyWebhookSecret,
  setKeyWebhook,
} from '../../domain/webhooks/manage-webhook';
import { createCallerFactory, portalProcedure, router } from '../init';

// The customer portal's API (/api/portal/trpc). Every procedure acts on the session's key and
// takes no key id; the webhook procedures are the operator's use cases with that key.

const actorOf = (portal: { apiKeyId: string; keyPrefix: string }) => customerActor(portal.apiKeyId, portal.keyPrefix);

export const portalRouter = router({
  overview: portalProcedure.input(portalNoInput).query(({ ctx }) => getPortalOverview(ctx.db, getSqlDb(), ctx.portal.apiKeyId)),
  /** The new secret, shown once; the session ends with the old secret. */
  rotateKey: portalProcedure
    .input(portalNoInput)
    .mutation(({ ctx }) => rotateKeySecret(ctx.db, actorOf(ctx.portal), ctx.portal.apiKeyId, ctx.portal.keyHash)),
  webhook: portalProcedure.input(portalNoInput).query(async ({ ctx }) => ({
    ...(await getKeyWebhook(ctx.db, ctx.portal.apiKeyId)),
    deliveries: await listKeyDeliveries(ctx.db, ctx.portal.apiKeyId, 20),
  })),
  /** Returns the new signing secret: the only time it is shown. */
  setWebhook: portalProcedure
    .input(portalWebhookInput)
    .mutation(({ ctx, input }) => setKeyWebhook(ctx.db, actorOf(ctx.portal), ctx.portal.apiKeyId, input.url)),
  rotateWebhookSecret: portalProcedure
    .input(portalNoInput)
    .mutation(({ ctx }) => rotateKeyWebhookSecret(ctx.db, actorOf(ctx.portal), ctx.portal.apiKeyId)),
  clearWebhook: portalProcedure
    .input(portalNoInput)
    .mutation(({ ctx }) => clearKeyWebhook(ctx.db, actorOf(ctx.portal), ctx.portal.apiKeyId)),
  resendDelivery: portalProcedure
    .input(portalDeliveryInput)
    .mutation(({ ctx, input }) => resendDelivery(ctx.db, actorOf(ctx.portal), ctx.portal.apiKeyId, input.deliveryId)),
});

export type PortalRouter = typeof portalRouter;

export const createPortalCaller = createCallerFactory(portalRouter);
