import { TRPCError } from '@trpc/server';
import {
  portalChangeInput,
  portalConfirmInput,
  portalDeliveryInput,
  portalNoInput,
  portalTopUpInput,
  portalTopUpReturnInput,
} from '../../contract/portal';
import { getSqlDb } from '../../db/client';
import { ApiError } from '../../domain/errors';
import { confirmChange, requestChange } from '../../domain/portal/confirm-change';
import { getPortalOverview } from '../../domain/portal/portal-overview';
import { getPortalSales, startPortalTopUp, topUpReturn } from '../../domain/portal/portal-sales';
import { customerActor } from '../../domain/portal/rotate-key';
import { getStripe } from '../../payments/stripe-client';
import { keyWebhookPanel, resendDelivery } from '../../domain/webhooks/manage-webhook';
import { createCallerFactory, portalProcedure, router } from '../init';

// The customer portal's API (/api/portal/trpc). Every procedure acts on the session's key and
// takes no key id. What changes who controls the key (its secret, its webhook) is asked for with
// requestChange and done by confirmChange with the code e-mailed to the key's buyer; a suspended
// key's session reads and changes nothing.

const actorOf = (portal: { apiKeyId: string; keyPrefix: string }) => customerActor(portal.apiKeyId, portal.keyPrefix);

const activeKey = (portal: { keyStatus: string }) => {
  if (portal.keyStatus !== 'active')
    throw new ApiError('forbidden', { message: 'This key is suspended: nothing can be changed or bought.' });
};

export const portalRouter = router({
  overview: portalProcedure.input(portalNoInput).query(({ ctx }) => getPortalOverview(ctx.db, getSqlDb(), ctx.portal.apiKeyId)),
  /** E-mails a one-time code for a key rotation or a webhook change to the key's buyer. */
  requestChange: portalProcedure
    .input(portalChangeInput)
    .mutation(({ ctx, input }) => requestChange(ctx.db, getSqlDb(), ctx.portal, input)),
  /** The code from the e-mail: the change is made; a new secret (key or webhook) is shown once. */
  confirmChange: portalProcedure
    .input(portalConfirmInput)
    .mutation(({ ctx, input }) => confirmChange(ctx.db, getSqlDb(), ctx.portal, input.code)),
  /** The key page's webhook panel (keys.webhook), without the deliveries' job ids. */
  webhook: portalProcedure.input(portalNoInput).query(async ({ ctx }) => {
    const { deliveries, ...webhook } = await keyWebhookPanel(ctx.db, ctx.portal.apiKeyId, true);
    return { ...webhook, deliveries: deliveries.map(({ job_id: _jobId, ...delivery }) => delivery) };
  }),
  resendDelivery: portalProcedure.input(portalDeliveryInput).mutation(({ ctx, input }) => {
    activeKey(ctx.portal);
    return resendDelivery(ctx.db, actorOf(ctx.portal), ctx.portal.apiKeyId, input.deliveryId);
  }),
  /** The top-up packs on offer (when selling is on) and the key's receipts. */
  sales: portalProcedure
    .input(portalNoInput)
    .query(({ ctx }) =>
      getPortalSales(ctx.db, ctx.portal.apiKeyId, { sellingOn: getStripe() !== null, keyActive: ctx.portal.keyStatus === 'active' }),
    ),
  /** A Checkout Session for a top-up pack of the key's package: the browser goes to `url`. */
  buyTopUp: portalProcedure.input(portalTopUpInput).mutation(({ ctx, input }) => {
    if (!ctx.origin) throw new TRPCError({ code: 'BAD_REQUEST', message: 'A top-up starts from the portal page.' });
    activeKey(ctx.portal);
    const address = ctx.address ?? 'unknown';
    return startPortalTopUp(ctx.db, getSqlDb(), getStripe(), {
      apiKeyId: ctx.portal.apiKeyId,
      units: input.units,
      origin: ctx.origin,
      address,
    });
  }),
  /** Back from the checkout: the units of this key's paid top-up, added now if the webhook has not yet. */
  topUpReturn: portalProcedure
    .input(portalTopUpReturnInput)
    .mutation(({ ctx, input }) =>
      topUpReturn(ctx.db, getSqlDb(), getStripe(), { apiKeyId: ctx.portal.apiKeyId, sessionId: input.sessionId }),
    ),
});

export type PortalRouter = typeof portalRouter;

export const createPortalCaller = createCallerFactory(portalRouter);
