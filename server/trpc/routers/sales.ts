import { z } from 'zod';
import { buyerEmailInput } from '../../contract/dashboard/key-forms';
import { mailOn } from '../../mail/mailer';
import { keyOwner, setBuyerEmail } from '../../domain/portal/owner-email';
import { reinstateKey } from '../../domain/sales/key-suspension';
import { listPurchases, listPurchasesForKey, salesFlags } from '../../domain/sales/list-purchases';
import { stripeSettings } from '../../payments/stripe-client';
import { adminProcedure, viewerProcedure, router } from '../init';
import { cursor, limit, uuid } from './inputs';

// Sales through Stripe Checkout (docs/selling.md): every purchase and top-up, a key's own, the
// refunded, disputed and refused ones the overview flags; a key's buyer (the e-mail that confirms
// its portal changes) and the operator's decision on a key a dispute suspended.

export const salesRouter = router({
  list: viewerProcedure.input(z.strictObject({ cursor, limit }).optional()).query(async ({ ctx, input }) => ({
    selling: stripeSettings() !== null,
    ...(await listPurchases(ctx.db, { limit: input?.limit ?? 50, cursor: input?.cursor })),
  })),
  forKey: viewerProcedure.input(z.strictObject({ id: uuid })).query(({ ctx, input }) => listPurchasesForKey(ctx.db, input.id)),
  flags: viewerProcedure.query(({ ctx }) => salesFlags(ctx.db)),
  /** The key's buyer's e-mail and suspension, and whether e-mail (SMTP) is on. */
  keyOwner: viewerProcedure
    .input(z.strictObject({ id: uuid }))
    .query(async ({ ctx, input }) => ({ ...(await keyOwner(ctx.db, input.id)), mail_on: mailOn() })),
  setBuyerEmail: adminProcedure
    .input(buyerEmailInput.extend({ id: uuid }))
    .mutation(({ ctx, input }) => setBuyerEmail(ctx.db, ctx.actor, input.id, input.email)),
  /** The operator's decision that a suspended key works again (revoking is keys.revoke). */
  reinstateKey: adminProcedure.input(z.strictObject({ id: uuid })).mutation(({ ctx, input }) => reinstateKey(ctx.db, ctx.actor, input.id)),
});
