import { TRPCError } from '@trpc/server';
import { portalDeliveryInput, portalNoInput, portalTopUpInput, portalTopUpReturnInput, portalWebhookInput } from '../../contract/portal';
import { getSqlDb } from '../../db/client';
import { getPortalOverview } from '../../domain/portal/portal-overview';
import { getPortalSales, startPortalTopUp, topUpReturn } from '../../domain/portal/portal-sales';
import { customerActor, rotateKeySecret } from '../../domain/portal/rotate-key';
import { getStripe } from '../../payments/stripe-client';
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
    ...(await getKeyWebhook(ctx.db, ctx.portal.apiKeyId, true)),
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
  /** The top-up packs on offer (when selling is on) and the key's receipts. */
  sales: portalProcedure.input(portalNoInput).query(({ ctx }) => getPortalSales(ctx.db, ctx.portal.apiKeyId, getStripe() !== null)),
  /** A Checkout Session for a top-up pack of the key's package: the browser goes to `url`. */
  buyTopUp: portalProcedure.input(portalTopUpInput).mutation(({ ctx, input }) => {
    if (!ctx.origin) throw new TRPCError({ code: 'BAD_REQUEST', message: 'A top-up starts from the portal page.' });
    return startPortalTopUp(ctx.db, getStripe(), { apiKeyId: ctx.portal.apiKeyId, units: input.units, origin: ctx.origin });
  }),
  /** Back from the checkout: the units of this key's paid top-up, added now if the webhook has not yet. */
  topUpReturn: portalProcedure
    .input(portalTopUpReturnInput)
    .mutation(({ ctx, input }) => topUpReturn(ctx.db, getStripe(), { apiKeyId: ctx.portal.apiKeyId, sessionId: input.sessionId })),
});

export type PortalRouter = typeof portalRouter;

export const createPortalCaller = createCallerFactory(portalRouter);
