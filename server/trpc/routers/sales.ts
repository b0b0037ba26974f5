import { z } from 'zod';
import { listPurchases, listPurchasesForKey, salesFlags } from '../../domain/sales/list-purchases';
import { stripeSettings } from '../../payments/stripe-client';
import { viewerProcedure, router } from '../init';
import { cursor, limit, uuid } from './inputs';

// Sales through Stripe Checkout (docs/selling.md): every purchase and top-up, a key's own, and
// the refunded and disputed ones the overview flags.

export const salesRouter = router({
  list: viewerProcedure.input(z.strictObject({ cursor, limit }).optional()).query(async ({ ctx, input }) => ({
    selling: stripeSettings() !== null,
    ...(await listPurchases(ctx.db, { limit: input?.limit ?? 50, cursor: input?.cursor })),
  })),
  forKey: viewerProcedure.input(z.strictObject({ id: uuid })).query(({ ctx, input }) => listPurchasesForKey(ctx.db, input.id)),
  flags: viewerProcedure.query(({ ctx }) => salesFlags(ctx.db)),
});
