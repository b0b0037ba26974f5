import { z } from 'zod';
import { webhookUrlField } from './webhook-url';

// The customer portal's requests (its sign-in route and its tRPC procedures). No procedure takes a
// key id: every one acts on the key of the session, so strict objects refuse one if it is sent.

/** POST /api/portal/session: the API key to sign in with. */
export const portalSignInInput = z.strictObject({ secret: z.string().trim().min(1).max(200) });

/** A change of who controls the key, asked for in the portal: done once the e-mailed code is entered. */
export const portalChangeInput = z.discriminatedUnion('action', [
  z.strictObject({ action: z.literal('rotate_key') }),
  /** The job webhook endpoint (the same rules as the operator's, in endpoint-address.ts). */
  z.strictObject({ action: z.literal('set_webhook'), url: webhookUrlField }),
  z.strictObject({ action: z.literal('rotate_webhook_secret') }),
  z.strictObject({ action: z.literal('clear_webhook') }),
]);

/** The one-time code from the buyer's e-mail (XXXX-XXXX; spaces, dashes and case do not matter). */
export const portalConfirmInput = z.strictObject({ code: z.string().trim().min(1).max(40) });

export const portalDeliveryInput = z.strictObject({ deliveryId: z.string().regex(/^msg_[0-9a-f]{32}$/) });

export const portalNoInput = z.strictObject({}).optional();

/** Buying one of the package's top-up packs, named by its units. */
export const portalTopUpInput = z.strictObject({ units: z.number().int().min(1).max(1_000_000_000) });

/** Back from Stripe's checkout: the session Stripe names in the return URL. */
export const portalTopUpReturnInput = z.strictObject({ sessionId: z.string().regex(/^cs_[A-Za-z0-9_]{1,200}$/) });
